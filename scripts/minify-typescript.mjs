// Build step: a minified copy of the TypeScript compiler,
// dist/typescript/typescript-<version>-<bytes>.min.cjs, which generate compiles instead of
// typescript.js (src/codegen/compiler-source.ts). Without a code cache (a fresh clone, CI) V8 scans
// all 9 MB of typescript.js before the first analysis; the minified text is 40% of that, which took
// 40–55 ms off each cold `tsop generate` here, and the code cache made from it is smaller too.
// Identifiers are shortened as well as whitespace: that is most of the gain. The copy is made from
// the TypeScript in node_modules and named by its version and the byte length of its typescript.js;
// the loader uses it only while the installed typescript.js has both (another version, or a patched
// one, is compiled as it is). A copy that exists is not made again.
import { transform } from "esbuild";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(resolve(root, "package.json"));
const source = require.resolve("typescript");
const { version } = JSON.parse(readFileSync(require.resolve("typescript/package.json"), "utf8"));
const outDir = resolve(root, "dist/typescript");
const outFile = resolve(outDir, `typescript-${version}-${statSync(source).size}.min.cjs`);

if (!existsSync(outFile)) {
  mkdirSync(outDir, { recursive: true });
  for (const name of readdirSync(outDir)) rmSync(resolve(outDir, name));
  const { code } = await transform(readFileSync(source, "latin1"), {
    minify: true,
    // Microsoft's copyright and licence header stays at the top (Apache-2.0 asks for it).
    legalComments: "inline",
    // ASCII, so the loader can read the file as Latin-1 (common/v8-code-cache.ts).
    charset: "ascii",
    format: "cjs",
    platform: "node",
    target: "node20.19",
    logLevel: "warning",
  });
  const notice =
    `/* typescript@${version} lib/typescript.js, minified by tsop's build (scripts/minify-typescript.mjs); ` +
    "licensed under the Apache License 2.0: see LICENSE.txt beside this file. */\n";
  const temp = `${outFile}.${process.pid}.tmp`;
  writeFileSync(temp, notice + code, "latin1");
  copyFileSync(resolve(dirname(source), "..", "LICENSE.txt"), resolve(outDir, "LICENSE.txt"));
  renameSync(temp, outFile);
}
