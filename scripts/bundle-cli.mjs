// Build step after tsc: bundles the CLI (src/cli/main.ts, every command and the dist/ modules and
// pure-JavaScript packages they use) into one CommonJS file, dist/cli/tsop.cjs, which bin/tsop.cjs
// loads through dist/cli/tsop-load-cli.cjs with V8's code cache (src/cli/load-cli.ts). One file
// because each module Node's ES module loader loads costs ~0.3-0.5 ms of resolving, reading and
// linking (`tsop bundle` loaded 24), and CommonJS because only a script compiled by node:vm can be
// given V8's code cache on Node 20: compiling the CLI's code was the largest single cost of a short
// command. What a command does not use still costs nothing at run time: esbuild wraps each module
// reached only through `await import(…)` in a function run on that import, and each bundled
// CommonJS package in one run on its first require(); V8 compiles a function only when it first runs.
// The file sits in dist/cli/, one folder below dist/ like every tsc output, so the paths modules
// compute from import.meta.url (../../package.json, ../../templates/, ../../data/) stay right.
// Left external: packages that are large and used by few commands, or load files of their own
// (typescript is compiled by node:vm with V8's code cache, from the minified copy
// scripts/minify-typescript.mjs makes: src/codegen/cache/code-cache.ts, compiler-source.ts).
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = resolve(root, "dist/cli");
const cliFile = resolve(cliDir, "tsop.cjs");

/** Packages bundled into the CLI: pure JavaScript, no files of their own read at run time. */
const BUNDLED_PACKAGES = new Set(["commander", "yaml", "js-yaml", "semver"]);

/** "yaml" of "yaml/util", "@scope/pkg" of "@scope/pkg/x". */
function packageName(specifier) {
  return specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
}

for (const name of readdirSync(cliDir)) {
  if (/^tsop(-.*)?\.c?js$/.test(name)) rmSync(resolve(cliDir, name));
}

/** `import("<package>")` calls esbuild left in the CLI (see the rewrite below). */
let externalImports = 0;

/**
 * commander requires node:child_process when it loads, for executable subcommands, which tsop does
 * not have; loading it (with net, dgram and the stream modules) cost every command ~3 ms. The
 * bundled copy requires it on first use instead; the build fails if commander's line changes.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const LAZY_CHILD_PROCESS =
  "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";

/** import.meta.url in a CommonJS file: its own URL (both files sit in dist/cli/). */
const IMPORT_META_URL = {
  define: { "import.meta.url": "importMetaUrl" },
  banner: { js: 'const importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
};

await build({
  entryPoints: [resolve(cliDir, "main.js")],
  outfile: cliFile,
  bundle: true,
  // Whitespace, comments and syntax minified, names kept (stack traces still name functions):
  // V8 scans every byte of a script it compiles, and commander alone is 125 KB, mostly comments.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  // ASCII only (esbuild's default, stated because src/cli/load-cli.ts reads the file as Latin-1).
  charset: "ascii",
  format: "cjs",
  platform: "node",
  target: "node20.19",
  logLevel: "warning",
  ...IMPORT_META_URL,
  plugins: [
    {
      name: "tsop-cli",
      setup(builder) {
        builder.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === "entry-point") return undefined;
          if (args.path.startsWith(".")) return undefined;
          if (!isBuiltin(args.path) && BUNDLED_PACKAGES.has(packageName(args.path))) return undefined;
          if (args.kind === "dynamic-import") externalImports++;
          return { external: true, path: args.path };
        });
        builder.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
          const source = readFileSync(args.path, "utf8");
          if (source.split(COMMANDER_CHILD_PROCESS).length !== 2)
            throw new Error(`${args.path}: expected one \`${COMMANDER_CHILD_PROCESS}\` to make lazy`);
          return { contents: source.replace(COMMANDER_CHILD_PROCESS, LAZY_CHILD_PROCESS), loader: "js" };
        });
      },
    },
  ],
});

// A script compiled by node:vm cannot run import() on Node 20 (that needs
// --experimental-vm-modules), and the external packages some commands import on demand (execa, ora,
// @inquirer/prompts, @kubernetes/client-node) are ES modules: their import() becomes a call of the
// function the launcher passes in, which runs a real import() from dist/cli/.
const EXTERNAL_IMPORT = /\bimport\(("[^".][^"]*")\)/g;
// The rewrite must meet exactly the calls esbuild left: a text like `import("x")` in a string
// would be met too, and changed.
const code = readFileSync(cliFile, "latin1");
let rewrites = 0;
const rewritten = code.replace(EXTERNAL_IMPORT, (_, specifier) => {
  rewrites++;
  return `importExternal(${specifier})`;
});
if (rewrites !== externalImports || /\bimport\(/.test(rewritten.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) {
  throw new Error(
    `dist/cli/tsop.cjs: ${externalImports} import() of packages expected, ${rewrites} rewritten; ` +
      'an import() of a variable, or import("…") in a string, cannot be told apart here',
  );
}
writeFileSync(cliFile, rewritten, "latin1");

// What bin/tsop.cjs loads, each as one CommonJS file: the start-up fast path (src/cli/fast-path.ts:
// `tsop --help` and `--version` then load two small modules and never set up Node's ES module
// loader), and the CLI's loader (src/cli/load-cli.ts, loaded only when the fast path does not
// answer: node:vm and node:v8 would cost the fast path ~1 ms). import.meta.url (paths to
// help.txt, package.json and the CLI) is each file's URL; they sit in dist/cli/ like their sources,
// so those relative paths stay right.
for (const [source, output] of [
  ["fast-path.js", "tsop-fast-path.cjs"],
  ["load-cli.js", "tsop-load-cli.cjs"],
]) {
  await build({
    entryPoints: [resolve(cliDir, source)],
    outfile: resolve(cliDir, output),
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20.19",
    ...IMPORT_META_URL,
    logLevel: "warning",
  });
}

// The start-up fast path answers `tsop --help` from this file: the help the
// CLI just built prints with stdout not a terminal (the only case where the file is used). Removed
// first, so the fast path cannot answer its own question.
const helpFile = resolve(cliDir, "help.txt");
rmSync(helpFile, { force: true });
const help = execFileSync(process.execPath, [resolve(root, "bin/tsop.cjs"), "--help"], {
  encoding: "utf8",
  env: { ...process.env, NO_COLOR: "1" },
});
writeFileSync(helpFile, help);
