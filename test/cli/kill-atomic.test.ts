// Output sets survive kill -9: `tsop generate` (CRD + role.yaml) and `tsop bundle` (base CSV +
// bundle/ + bundle.Dockerfile) are spawned and killed at random points; each time the set on disk
// is all old or all new, or a commit journal says the swap was under way. The next run then
// completes it and no temp file of tsop's naming is left anywhere in the project.
import { spawn } from "node:child_process";
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop, TSOP_BIN } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { tsconfig } from "../codegen/support.js";

type Files = Record<string, string | undefined>;
/** A fixed createdAt, so two runs of bundle give the same CSV. */
const ENV = { CI: "1", SOURCE_DATE_EPOCH: "1700000000" };

async function snapshot(dir: string, paths: readonly string[]): Promise<Files> {
  const out: Files = {};
  for (const p of paths) out[p] = await readFile(join(dir, p), "utf8").catch(() => undefined);
  return out;
}

/** Every hidden temp of tsop's naming (and every commit journal) under dir. */
async function tsopTemps(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((e) =>
    /(^|\/)\.(tsop-commit-|.+\.[0-9a-f]{12}\.tmp$|.+\.(tmp|old)-[0-9a-f]{12}$)/.test(e),
  );
}

/** Starts the CLI and SIGKILLs it after `afterMs` (or lets it finish first). */
function runAndKill(args: string[], cwd: string, afterMs: number): Promise<"killed" | "finished"> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSOP_BIN, ...args], {
      cwd,
      stdio: "ignore",
      env: { ...process.env, ...ENV },
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), afterMs);
    child.on("exit", (_code, signal) => {
      clearTimeout(timer);
      resolve(signal === "SIGKILL" ? "killed" : "finished");
    });
  });
}

async function timed(args: string[], cwd: string): Promise<number> {
  const started = Date.now();
  const result = await runTsop(args, { cwd, env: ENV, timeoutMs: 110_000 });
  expect(result.exitCode, result.stderr).toBe(0);
  return Date.now() - started;
}

/**
 * The kill loop: from the old set, run `args` and kill it at a random point (mostly late, where
 * the writes are); classify; rerun to completion; check all new and no temps; restore the old set.
 */
async function killLoop(
  dir: string,
  paths: string[],
  old: Files,
  fresh: Files,
  args: string[],
  rounds: number,
) {
  const duration = await timed(args, dir);
  expect(await snapshot(dir, paths)).toEqual(fresh);
  const seen = { old: 0, new: 0, journal: 0 };
  for (let i = 0; i < rounds; i++) {
    for (const p of paths) await writeFile(join(dir, p), old[p]!);
    await runAndKill(args, dir, Math.round(duration * (0.7 + Math.random() * 0.6)));
    const state = await snapshot(dir, paths);
    const journal = (await readdir(dir)).some((n) => n.startsWith(".tsop-commit-"));
    if (JSON.stringify(state) === JSON.stringify(old)) seen.old++;
    else if (JSON.stringify(state) === JSON.stringify(fresh)) seen.new++;
    else {
      // Half old, half new is allowed only while a commit journal records the swap.
      const which = paths.map(
        (p) => `${p}: ${state[p] === old[p] ? "old" : state[p] === fresh[p] ? "new" : "other"}`,
      );
      expect(journal, `round ${i}: mixed set without a journal: ${which.join(", ")}`).toBe(true);
      seen.journal++;
    }
    await timed(args, dir);
    expect(await snapshot(dir, paths)).toEqual(fresh);
    expect(await tsopTemps(dir)).toEqual([]);
  }
  console.log(`kill loop ${args[0]}: ${JSON.stringify(seen)}`); // the figures for the record
  return seen;
}

const T = 600_000;

describe("kill -9 during writes leaves each output set all old or all new", { timeout: T }, () => {
  it("tsop generate: the CRD and role.yaml move together", async () => {
    const fixture = join(REPO_ROOT, "fixtures/codegen/memcached");
    const api = await readFile(join(fixture, "api/v1alpha1/memcached.ts"), "utf8");
    const controller = await readFile(join(fixture, "internal/controller/memcached-controller.ts"), "utf8");
    const dir = await testdir({
      "tsconfig.json": tsconfig(),
      "api/v1alpha1/memcached.ts": api,
      "controllers/memcached.ts": controller,
    });
    const paths = ["config/crd/bases/cache.example.com_memcacheds.yaml", "config/rbac/role.yaml"];
    await timed(["generate"], dir);
    const old = await snapshot(dir, paths);
    await writeFile(join(dir, "api/v1alpha1/memcached.ts"), api.replace("@maximum 3", "@maximum 5"));
    await writeFile(
      join(dir, "controllers/memcached.ts"),
      controller.replace(
        'resources: ["pods"], verbs: ["get", "list", "watch"]',
        'resources: ["pods"], verbs: ["get", "list"]',
      ),
    );
    await timed(["generate"], dir);
    const generated = await snapshot(dir, paths);
    for (const p of paths) expect(generated[p], p).not.toBe(old[p]);
    const seen = await killLoop(dir, paths, old, generated, ["generate"], 5);
    expect(seen.old + seen.new + seen.journal).toBe(5);
  });

  it("tsop bundle: the base CSV, bundle/ and bundle.Dockerfile move together", async () => {
    const dir = await testdir();
    await cp(join(REPO_ROOT, "fixtures/bundle/memcached/project"), dir, { recursive: true });
    const base = "config/manifests/bases/memcached-operator.clusterserviceversion.yaml";
    const csv = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
    const paths = [base, csv, "bundle/metadata/annotations.yaml", "bundle.Dockerfile"];
    const common = ["bundle", "--skip-generate", "--image", "example.com/memcached-operator:v0.0.1"];
    await timed([...common, "--version", "0.0.1"], dir);
    const old = await snapshot(dir, paths);
    const next = [...common, "--version", "0.0.2", "--display-name", "Memcached Two", "--channels", "beta"];
    // The expected new set, from an uninterrupted run in a copy.
    const copy = await testdir();
    await cp(dir, copy, { recursive: true });
    await timed(next, copy);
    const fresh = await snapshot(copy, paths);
    for (const p of paths) expect(fresh[p], p).not.toBe(old[p]);
    const seen = await killLoop(dir, paths, old, fresh, next, 12);
    expect(seen.old + seen.new + seen.journal).toBe(12);
  });
});
