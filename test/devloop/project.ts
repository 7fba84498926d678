// A scaffolded operator project for the dev-loop tests: `tsop init --skip-install` and `create api`
// by the built CLI, with node_modules linked to this checkout's instead of an `npm install` (tsop
// itself as the project's `tsop` dependency), so `npm run build` works offline in a second or two.
import { mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";

/** Links every package of this checkout into `dir/node_modules`, plus tsop itself and its bins. */
export async function linkDependencies(dir: string): Promise<void> {
  const modules = join(dir, "node_modules");
  const bin = join(modules, ".bin");
  await mkdir(bin, { recursive: true });
  for (const name of await readdir(join(REPO_ROOT, "node_modules"))) {
    if (name === ".bin" || name.startsWith(".")) continue;
    await symlink(join(REPO_ROOT, "node_modules", name), join(modules, name));
  }
  await symlink(REPO_ROOT, join(modules, "tsop"));
  await symlink(join(REPO_ROOT, "bin", "tsop.cjs"), join(bin, "tsop"));
  await symlink(join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), join(bin, "tsc"));
}

/**
 * A memcached-operator project with one kind (cache/v1alpha1 Memcached), dependencies linked; made
 * in beforeAll, so the caller removes it with the returned `remove`.
 */
export async function scaffoldOperator(
  name = "memcached-operator",
): Promise<{ dir: string; remove(): Promise<void> }> {
  const parent = await mkdtemp(join(tmpdir(), "tsop-devloop-"));
  const dir = join(parent, name);
  const init = await runTsop(["init", dir, "--domain", "example.com", "--skip-install"]);
  expect(init.exitCode, init.stderr).toBe(0);
  const api = await runTsop(
    ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"],
    {
      cwd: dir,
    },
  );
  expect(api.exitCode, api.stderr).toBe(0);
  await linkDependencies(dir);
  return { dir, remove: () => rm(parent, { recursive: true, force: true }) };
}
