// Build step after tsc: bundles the CLI shell (dist/cli/*.js, statically imported by main.js) into
// one file, dist/cli/tsop.js, which bin/tsop.js loads. Each module Node loads costs start-up time,
// and `tsop --help` needs every command module; one file saves ~15 ms (bench/startup.js).
// Everything else stays external and is referenced by the same relative paths: dist/common (shared
// with the domain modules, so error classes keep one identity) and the domain modules that actions
// import lazily.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = resolve(root, "dist/cli");

await build({
  entryPoints: [resolve(cliDir, "main.js")],
  outfile: resolve(cliDir, "tsop.js"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  plugins: [
    {
      name: "cli-shell-only",
      setup(builder) {
        builder.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === "entry-point") return undefined;
          const local = args.path.startsWith(".");
          const inCli = local && dirname(resolve(args.resolveDir, args.path)) === cliDir;
          if (inCli && args.kind === "import-statement") return undefined;
          return { external: true, path: args.path };
        });
      },
    },
  ],
});

// The start-up fast path (src/cli/fast-path.ts) answers `tsop --help` from this file: the help the
// CLI just built prints with stdout not a terminal (the only case where the file is used). Removed
// first, so the fast path cannot answer its own question.
const helpFile = resolve(cliDir, "help.txt");
rmSync(helpFile, { force: true });
const help = execFileSync(process.execPath, [resolve(root, "bin/tsop.js"), "--help"], {
  encoding: "utf8",
  env: { ...process.env, NO_COLOR: "1" },
});
writeFileSync(helpFile, help);
