// A project as a user has it: `tsop init` (with its vendor/tsop-<version>.tgz) + `tsop create api`,
// node_modules a symbolic link (as with a shared install), the base CSV fields in tsop.bundle.yaml
// and one bundle written. Plus a byte-exact snapshot of a directory, to prove nothing was touched.
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { cp, lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { expect } from "vitest";
import { testdir } from "../support/testdir.js";
import { linkNodeModules, tsop } from "./helpers.js";

export const ENV = { SOURCE_DATE_EPOCH: "1700000000" };

let template: string | undefined;

async function makeTemplate(): Promise<string> {
  // Kept for every test of the file (testdir would remove it after the first), removed at exit.
  const base = await testdir({}, { keep: true });
  process.on("exit", () => rmSync(base, { recursive: true, force: true }));
  const dir = join(base, "shop-operator");
  await mkdir(dir);
  const init = await tsop(dir, ["init", "--domain", "example.com", "--skip-install", "-y", "."]);
  expect(init.exitCode, init.stderr).toBe(0);
  const api = await tsop(dir, ["create", "api", "--group", "shop", "--version", "v1", "--kind", "Cart"]);
  expect(api.exitCode, api.stderr).toBe(0);
  const modules = join(base, "shared-node-modules");
  await mkdir(modules);
  await linkNodeModules(modules);
  await symlink(join(modules, "node_modules"), join(dir, "node_modules"));
  const config = join(dir, "tsop.bundle.yaml");
  await writeFile(
    config,
    `${await readFile(config, "utf8")}description: Runs carts.\nproviderName: Example\nmaintainers: Jane <jane@example.com>\nminKubeVersion: 1.28.0\n`,
  );
  const first = await tsop(dir, ["bundle", "--version", "0.0.1"], ENV);
  expect(first.exitCode, first.stderr).toBe(0);
  return dir;
}

/** A fresh copy of the user project (built once per test file), in its own parent directory. */
export async function userProject(): Promise<string> {
  template ??= await makeTemplate();
  const parent = await testdir();
  const dir = join(parent, "shop-operator");
  await cp(template, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

/** Every entry under dir: file → sha256, link → its target, directory → "dir" (links not followed). */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function visit(current: string): Promise<void> {
    for (const name of (await readdir(current)).sort()) {
      const full = join(current, name);
      const rel = relative(dir, full);
      const info = await lstat(full);
      if (info.isSymbolicLink()) out[rel] = `link → ${await readlink(full)}`;
      else if (!info.isFile() && !info.isDirectory()) out[rel] = "special file";
      else if (info.isDirectory()) {
        out[rel] = "dir";
        await visit(full);
      } else
        out[rel] = createHash("sha256")
          .update(await readFile(full))
          .digest("hex");
    }
  }
  await visit(dir);
  return out;
}

/** The names beside the project (a moved-away copy would show up here). */
export async function siblings(dir: string): Promise<string[]> {
  return (await readdir(dirname(dir))).sort();
}
