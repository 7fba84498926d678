// What a generate cache entry is keyed by, besides the options of the run: the tool that produced
// it. tsop's version, the versions of the packages that shape the output (the TypeScript compiler,
// whose lib files are then left out of the recorded inputs, and the YAML writer), and the size and
// modification time of every module generate runs, so a rebuilt development checkout (same version
// number, new code) never answers from an entry written by the old code.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { tsopVersion } from "../../common/version.js";

const require = createRequire(import.meta.url);

/** The directory of the TypeScript compiler's lib files (lib.es5.d.ts…). */
export const TYPESCRIPT_LIB_DIR = dirname(require.resolve("typescript"));

/** The modules generate runs: src/ (or dist/) codegen, common and project. */
const CODE_DIRS = ["codegen", "common", "project"].map((name) =>
  fileURLToPath(new URL(`../../${name}/`, import.meta.url)),
);

export function toolIdentity(): Record<string, string> {
  return {
    tsop: tsopVersion(),
    typescript: packageVersion("typescript"),
    yaml: packageVersion("yaml"),
    code: codeFingerprint(),
  };
}

function packageVersion(name: string): string {
  const file = require.resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

function codeFingerprint(): string {
  const parts: string[] = [];
  for (const dir of CODE_DIRS) {
    for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
      if (!/\.(js|ts|json)$/.test(name) || name.endsWith(".d.ts")) continue;
      const stat = statSync(join(dir, name));
      parts.push(`${name}:${stat.size}:${stat.mtimeMs}`);
    }
  }
  return parts.join(",");
}
