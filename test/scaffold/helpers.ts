// Shared set-up of the scaffold CLI tests: a project scaffolded by the built CLI (no install),
// scaffolded once per test file and copied for each test that needs a fresh one.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

const pristine = new Map<string, Promise<string>>();
const cacheDirs: string[] = [];
afterAll(async () => {
  await Promise.all(cacheDirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function scaffoldOnce(name: string): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), "tsop-scaffold-"));
  cacheDirs.push(parent);
  const dir = join(parent, name);
  const result = await runTsop(["init", dir, "--domain", "example.com", "--skip-install"]);
  expect(result.stderr).not.toContain("error");
  expect(result.exitCode).toBe(0);
  return dir;
}

/** A fresh copy of a project `tsop init <name> --domain example.com --skip-install` wrote. */
export async function scaffoldProject(name = "memcached-operator"): Promise<string> {
  let source = pristine.get(name);
  if (!source) {
    source = scaffoldOnce(name);
    pristine.set(name, source);
  }
  const dir = join(await testdir(), name);
  await cp(await source, dir, { recursive: true });
  return dir;
}

export async function createApi(dir: string, args: string[]) {
  return runTsop(["create", "api", ...args], { cwd: dir });
}
