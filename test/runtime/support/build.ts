// Tests that run the built package (dist/) rebuild it first when it is missing or older than the
// runtime sources (every file of src/runtime and its rooms: a file edited in a room leaves the
// room's own mtime unchanged).
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "../../..");
export const distRuntime = join(repoRoot, "dist/runtime/index.js");

export function ensureBuilt(): void {
  const newest = newestMtime(join(repoRoot, "src/runtime"));
  let built = 0;
  try {
    built = statSync(distRuntime).mtimeMs;
  } catch {}
  if (built < newest)
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: repoRoot, stdio: "ignore" });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
