// What a generate cache entry is keyed by, besides the options of the run: the tool that produced
// it. tsop's version, the versions of the packages that shape the output (the TypeScript compiler,
// whose lib files are then left out of the recorded inputs, and the YAML writer). A tsop installed in
// node_modules is identified by its version; any other (a development checkout, npm link) also by a
// hash of the modules generate runs, so a rebuild with new code and the same version number never
// answers from an entry written by the old code. Contents, not timestamps: a copy of the same code
// keeps its entries.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { tsopVersion } from "../../common/version.js";
import { BUILTIN_SCHEMAS_FILE } from "../builtin-schemas.js";

const require = createRequire(import.meta.url);

/** The directory of the TypeScript compiler's lib files (lib.es5.d.ts…). */
export const TYPESCRIPT_LIB_DIR = dirname(require.resolve("typescript"));

const HERE = dirname(fileURLToPath(import.meta.url));
const INSTALLED = /[\\/]node_modules[\\/]/.test(HERE);

/**
 * The modules generate runs: in the CLI's bundle (scripts/bundle-cli.mjs) this module is part of
 * dist/cli/tsop.cjs, which then holds all of them; else src/ (or dist/) codegen, common and project.
 * The built-in Kubernetes schemas (data/) shape the output too.
 */
const CODE =
  basename(HERE) === "cli"
    ? // Only top-level names can match: listing subdirectories (Node's recursive readdir is slow,
      // ~4 ms here) would add nothing.
      { dirs: [HERE], file: /^tsop.*\.c?js$/, recursive: false }
    : {
        dirs: ["codegen", "common", "project"].map((name) => join(HERE, "../..", name)),
        file: /^(?!.*\.d\.ts$).*\.(js|ts|json)$/,
        recursive: true,
      };

export function toolIdentity(): Record<string, string> {
  return {
    tsop: tsopVersion(),
    typescript: packageVersion("typescript"),
    yaml: packageVersion("yaml"),
    ...(INSTALLED ? {} : { code: codeFingerprint() }),
  };
}

function packageVersion(name: string): string {
  const file = require.resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

function codeFingerprint(): string {
  const hash = createHash("sha256").update(readFileSync(BUILTIN_SCHEMAS_FILE)).update("\0");
  for (const dir of CODE.dirs) {
    for (const name of readdirSync(dir, { recursive: CODE.recursive, encoding: "utf8" }).sort()) {
      if (!CODE.file.test(name)) continue;
      hash
        .update(`${name}\0`)
        .update(readFileSync(join(dir, name)))
        .update("\0");
    }
  }
  return hash.digest("base64url");
}
