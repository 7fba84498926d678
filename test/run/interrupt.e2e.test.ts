// Stopping a cluster command as people do: Ctrl-C typed on a real terminal while a spinner shows
// (the spinner library must not swallow it), SIGTERM (a CI runner or service manager stopping the
// job), and a second Ctrl-C that stops at once. Each first signal rolls back what the run created.
import { createServer, type Server } from "node:http";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runTsop, TSOP_BIN } from "../support/cli.js";
import { runOnTerminal, tail } from "../support/pty.js";
import { testdir } from "../support/testdir.js";
import {
  type BundleRegistry,
  names,
  type RunEnv,
  startBundleRegistry,
  startRunEnv,
  tsopObjects,
} from "./harness.js";

const OLM = "operators.coreos.com/v1alpha1";
let open: BundleRegistry;
let env: RunEnv | undefined;

beforeAll(async () => {
  open = await startBundleRegistry("none");
}, 90_000);
afterAll(async () => {
  await open?.stop();
});
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const WAITING_FOR_CSV = "waiting for ClusterServiceVersion";

async function slowRunEnv(): Promise<RunEnv> {
  return startRunEnv({ model: { delays: { csvPhaseMs: 120_000 } } });
}

function runBundleArgs(e: RunEnv): string[] {
  // --timeout: if Ctrl-C were ignored, the run ends with exit 3 instead of hanging the test.
  return [
    "run",
    "bundle",
    open.image("0.0.1"),
    "--kubeconfig",
    e.cluster.kubeconfigPath,
    "-n",
    "demo",
    "--timeout",
    "45s",
  ];
}

describe("Ctrl-C and SIGTERM roll back what the run created", () => {
  it("Ctrl-C typed on a terminal while the spinner shows", async () => {
    env = await slowRunEnv();
    const term = runOnTerminal(runBundleArgs(env), { env: open.env });
    await term.waitFor(WAITING_FOR_CSV);
    expect(await tsopObjects(env.client, "demo")).not.toEqual([]);
    term.type("\x03");
    const code = await term.exited;
    const screen = tail(term.output());
    expect(screen).toContain("interrupted: removing what this run created");
    expect(screen).toContain("interrupted");
    expect(code, screen).toBe(130);
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([]);
  }, 120_000);

  it("SIGTERM is treated like Ctrl-C: roll back, then exit 143", async () => {
    env = await slowRunEnv();
    const child = execa(process.execPath, [TSOP_BIN, ...runBundleArgs(env)], {
      env: { ...open.env, NO_COLOR: "1" },
      reject: false,
    });
    let stderr = "";
    await new Promise<void>((resolve) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes(WAITING_FOR_CSV)) resolve();
      });
    });
    child.kill("SIGTERM");
    const done = await child;
    expect(done.stderr).toContain("interrupted: removing what this run created");
    expect(done.exitCode, done.stderr).toBe(143);
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([]);
  }, 120_000);

  it("a second Ctrl-C stops at once and names what was left; cleanup then removes it", async () => {
    env = await slowRunEnv();
    const term = runOnTerminal(runBundleArgs(env), { env: open.env });
    await term.waitFor(WAITING_FOR_CSV);
    // Deletes are slow now, so the second Ctrl-C lands while the rollback still runs.
    env.cluster.faults.latency(5_000, { method: "DELETE" });
    term.type("\x03");
    await term.waitFor("interrupted: removing what this run created");
    term.type("\x03");
    const code = await term.exited;
    const screen = tail(term.output());
    expect(screen).toContain("stopped at once; left behind (remove with: tsop cleanup <package>):");
    expect(screen).toMatch(/ {2}- CatalogSource demo\/memcached-operator-catalog/);
    expect(code, screen).toBe(130);
    env.cluster.faults.clear();
    const cleaned = await runTsop([
      "cleanup",
      "memcached-operator",
      "--kubeconfig",
      env.cluster.kubeconfigPath,
      "-n",
      "demo",
    ]);
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
  }, 180_000);
});

describe("Ctrl-C during init's npm install", () => {
  let registry: Server;
  let registryUrl: string;
  beforeAll(async () => {
    // A registry that accepts connections and never answers: npm install waits until stopped.
    registry = createServer(() => {});
    await new Promise<void>((r) => registry.listen(0, "127.0.0.1", r));
    registryUrl = `http://127.0.0.1:${(registry.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    registry.closeAllConnections();
    await new Promise<void>((r) => registry.close(() => r()));
  });

  it("stops npm and removes what init wrote", async () => {
    const parent = await testdir();
    const dir = join(parent, "memcached-operator");
    const term = runOnTerminal(["init", dir, "--domain", "example.com", "--tsop-dependency", "^0.1.0"], {
      env: {
        npm_config_registry: registryUrl,
        npm_config_fetch_retries: "0",
        npm_config_cache: join(parent, ".npm"),
      },
    });
    await term.waitFor("installing dependencies");
    expect(existsSync(join(dir, "PROJECT"))).toBe(true);
    term.type("\x03");
    const code = await term.exited;
    const screen = tail(term.output());
    expect(screen).toContain("interrupted: stopping npm install and removing what this init wrote");
    expect(code, screen).toBe(130);
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
