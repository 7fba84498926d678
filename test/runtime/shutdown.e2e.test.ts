// A real operator process (the built package) gets SIGTERM: it finishes the reconcile in flight,
// releases its leader lease and exits 0 by itself (no handle left open).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObjectLike } from "../../src/runtime/client/client.js";
import { type Harness, harness } from "./support/cluster.js";
import { distRuntime, ensureBuilt } from "./support/build.js";
import { waitFor } from "./support/wait.js";

const dir = mkdtempSync(join(tmpdir(), "tsop-sigterm-"));
let h: Harness;
beforeAll(async () => {
  ensureBuilt();
  h = await harness();
}, 120_000);
afterAll(async () => {
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const operator = `
const { Manager } = await import(${JSON.stringify(pathToFileURL(distRuntime).href)});
const manager = await Manager.create({
  kubeconfig: process.env.TEST_KUBECONFIG,
  metricsBindAddress: "127.0.0.1:0",
  healthProbeBindAddress: "127.0.0.1:0",
  leaderElection: { id: "sigterm-test", namespace: "default", retryPeriodSeconds: 0.2, leaseDurationSeconds: 5, renewDeadlineSeconds: 3 },
  logger: { format: "json" },
});
await manager.controller({ apiVersion: "v1", kind: "ConfigMap" }).complete(async (req, ctx) => {
  if (req.name !== "slow") return;
  ctx.log.info("slow reconcile started");
  await new Promise((r) => setTimeout(r, 400));
  ctx.log.info("slow reconcile finished");
});
await manager.start();
console.log("exited cleanly");
`;

it("shuts down gracefully on SIGTERM", async () => {
  const script = join(dir, "operator.mjs");
  writeFileSync(script, operator);
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, TEST_KUBECONFIG: h.cluster.kubeconfigPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await waitFor("leadership", () => stderr.includes("successfully acquired lease"));
  await h.client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "slow", namespace: "default" },
  });
  await waitFor("the slow reconcile", () => stderr.includes("slow reconcile started"));
  child.kill("SIGTERM");
  const code = await Promise.race([exited, waitFor("exit", () => false, 15_000).catch(() => "hung")]);
  expect(code).toBe(0);
  expect(stdout).toContain("exited cleanly");
  const lines = stderr
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { msg: string; signal?: string });
  const order = (msg: string) => lines.findIndex((l) => l.msg === msg);
  expect(lines.find((l) => l.msg === "received signal; shutting down")?.signal).toBe("SIGTERM");
  expect(order("slow reconcile finished")).toBeGreaterThan(order("received signal; shutting down"));
  expect(order("released leader lease")).toBeGreaterThan(order("slow reconcile finished"));
  const lease = await h.client.get<KubeObjectLike & { spec?: { holderIdentity?: string } }>(
    { apiVersion: "coordination.k8s.io/v1", kind: "Lease" },
    { namespace: "default", name: "sigterm-test" },
  );
  expect(lease?.spec?.holderIdentity).toBe("");
});

// Go's mgr.Start blocks until its context ends; a manager with nothing open (no servers, no
// controllers) must keep its process alive too, instead of Node exiting with code 13 (a top-level
// await that never settles) as the CronJob port's main.ts did before it set up its controller.
const idleOperator = `
const { Manager } = await import(${JSON.stringify(pathToFileURL(distRuntime).href)});
const manager = await Manager.create({
  kubeconfig: process.env.TEST_KUBECONFIG,
  metricsBindAddress: "0",
  healthProbeBindAddress: "0",
  processMetrics: false,
  logger: { format: "json" },
});
setTimeout(() => console.log("still running"), 300).unref();
await manager.start();
console.log("exited cleanly");
`;

it("a manager with nothing to run stays up until SIGTERM, then exits 0", async () => {
  const script = join(dir, "idle-operator.mjs");
  writeFileSync(script, idleOperator);
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, TEST_KUBECONFIG: h.cluster.kubeconfigPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve((exitCode = code))),
  );
  await waitFor(
    "the manager running past its start",
    () => stdout.includes("still running") || exitCode !== undefined,
  );
  expect(exitCode, stdout).toBeUndefined();
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
  expect(stdout).toContain("exited cleanly");
});
