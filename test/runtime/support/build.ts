// Tests that run the built package (dist/) rebuild it first when it is missing or older than the
// runtime sources.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "../../..");
export const distRuntime = join(repoRoot, "dist/runtime/index.js");

export function ensureBuilt(): void {
  const src = join(repoRoot, "src/runtime");
  const newest = Math.max(...readdirSync(src).map((f) => statSync(join(src, f)).mtimeMs));
  let built = 0;
  try {
    built = statSync(distRuntime).mtimeMs;
  } catch {}
  if (built < newest)
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: repoRoot, stdio: "ignore" });
}
