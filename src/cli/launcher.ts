// What bin/tsop.cjs loads first, bundled as one CommonJS file (dist/cli/tsop-launcher.cjs, by
// scripts/bundle-cli.mjs): the start-up fast path, and the loader of the full CLI.
export { answeredWithoutCli } from "./fast-path.js";
export { loadCli } from "./load-cli.js";
