// Build step after tsc: bundles the CLI into dist/cli/tsop.js (the shell: src/cli/main.ts and the
// command modules it imports statically), which bin/tsop.cjs loads, and one lazily loaded chunk per
// command's domain code (dist/cli/tsop-*.js: what an action imports with `await import(…)`, with
// the dist/ modules and the pure-JavaScript packages it needs). Each module Node loads costs
// start-up time: `tsop bundle` loaded ~200 files (its own dist/ modules, and yaml and semver as 120
// CommonJS files) before this. Code shared by two commands goes into a shared chunk, so each module
// still has one instance per process (error classes keep one identity).
// The chunks sit in dist/cli/, one folder below dist/ like every tsc output, so the paths modules
// compute from import.meta.url (../../package.json, ../../templates/) stay right.
// Left external: packages that are large and used by few commands, or load files of their own
// (typescript is loaded through require with V8's code cache, src/codegen/cache/code-cache.ts).
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = resolve(root, "dist/cli");

/** Packages bundled into the chunks: pure JavaScript, no files of their own read at run time. */
const BUNDLED_PACKAGES = new Set(["commander", "yaml", "js-yaml", "semver"]);

const requireHere = createRequire(import.meta.url);

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

const { metafile } = await build({
  entryPoints: { tsop: resolve(cliDir, "main.js") },
  metafile: true,
  outdir: cliDir,
  chunkNames: "tsop-[name]-[hash]",
  bundle: true,
  // Whitespace, comments and syntax minified, names kept (stack traces still name functions):
  // V8 scans every byte of a module it loads, and commander alone is 125 KB, mostly comments
  // (~10 ms less CPU per `tsop bundle`, interleaved A/B).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  logLevel: "warning",
  plugins: [
    {
      name: "tsop-chunks",
      setup(builder) {
        // A bundled CommonJS package's require() of a Node built-in ("process", "buffer" in yaml):
        // an ES module chunk has no require, so the built-in comes from process.getBuiltinModule
        // (Node ≥ 20.16; package.json asks for ≥ 20.19).
        builder.onResolve({ filter: /.*/ }, (args) =>
          args.kind === "require-call" && isBuiltin(args.path)
            ? { path: args.path, namespace: "node-builtin" }
            : undefined,
        );
        builder.onLoad({ filter: /.*/, namespace: "node-builtin" }, (args) => ({
          contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
          loader: "js",
        }));
        // `await import("yaml")` of a bundled CommonJS package would give a chunk with only a
        // default export (esbuild), where Node gives the named exports too: such an import gets an
        // ES module facade that re-exports the package's names one by one.
        builder.onResolve({ filter: /.*/ }, (args) =>
          args.kind === "dynamic-import" && BUNDLED_PACKAGES.has(packageName(args.path))
            ? { path: args.path, namespace: "esm-facade" }
            : undefined,
        );
        builder.onLoad({ filter: /.*/, namespace: "esm-facade" }, (args) => {
          const names = Object.keys(requireHere(args.path)).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
          const lines = names.filter((n) => n !== "default").map((n) => `export const ${n} = pkg.${n};`);
          return {
            contents: [
              `import * as pkg from ${JSON.stringify(args.path)};`,
              ...lines,
              "export default pkg.default;",
            ].join("\n"),
            loader: "js",
            resolveDir: root,
          };
        });
        builder.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === "entry-point") return undefined;
          // Data files stay JSON (Node's JSON.parse reads them faster than V8 compiles the same
          // data as a JavaScript literal: 0.9 MB of built-in Kubernetes schemas in codegen).
          if (args.path.startsWith(".") && args.path.endsWith(".json")) {
            return { external: true, path: `./${relative(cliDir, resolve(args.resolveDir, args.path))}` };
          }
          if (args.path.startsWith(".")) return undefined;
          if (BUNDLED_PACKAGES.has(packageName(args.path))) return undefined;
          return { external: true, path: args.path };
        });
      },
    },
  ],
});

// Which packages each CLI file bundles (minified files no longer name their modules), for
// test/cli/lazy-imports.test.ts and for anyone asking what a command loads.
const packagesByFile = {};
for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
  if (!output.endsWith(".js")) continue;
  const packages = Object.keys(inputs).flatMap((input) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    return match ? [match[1]] : [];
  });
  packagesByFile[relative(cliDir, resolve(root, output))] = [...new Set(packages)].sort();
}
writeFileSync(resolve(cliDir, "bundled-packages.json"), `${JSON.stringify(packagesByFile, null, 2)}\n`);

// The start-up fast path (src/cli/fast-path.ts, which bin/tsop.cjs requires first) as one CommonJS
// file: `tsop --help` and `--version` then load two modules (bin/tsop.cjs and this) instead of five,
// and never set up Node's ES module loader. import.meta.url (paths to help.txt and package.json) is
// this file's URL; it sits in dist/cli/ like fast-path.js, so those relative paths stay right.
await build({
  entryPoints: [resolve(cliDir, "fast-path.js")],
  outfile: resolve(cliDir, "tsop-fast-path.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20.19",
  define: { "import.meta.url": "importMetaUrl" },
  banner: { js: 'const importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});

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
