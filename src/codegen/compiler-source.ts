// Which text of the TypeScript compiler generate compiles: the minified copy tsop's build makes
// (scripts/minify-typescript.mjs: V8 compiles it faster when no code cache helps) when it is a copy
// of the installed typescript.js (its version and byte length are in the copy's name), else the
// installed typescript.js itself. Either way the compiler runs
// as typescript.js (its __filename): it finds its lib files (lib.es5.d.ts…) beside that file.
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

export interface CompilerSource {
  /** The file whose text is compiled. */
  text: string;
  /** The installed typescript.js: the module's filename. */
  module: string;
}

export function compilerSource(): CompilerSource {
  const module = require.resolve("typescript");
  const { version } = JSON.parse(readFileSync(require.resolve("typescript/package.json"), "utf8")) as {
    version: string;
  };
  const bytes = statSync(module).size;
  // Two folders up from src/codegen/, dist/codegen/ and dist/cli/ (the CLI's bundle) alike.
  const minified = fileURLToPath(
    new URL(`../../dist/typescript/typescript-${version}-${bytes}.min.cjs`, import.meta.url),
  );
  return { text: statSync(minified, { throwIfNoEntry: false })?.isFile() ? minified : module, module };
}
