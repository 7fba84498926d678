// The V8 flags a tsop process runs under, set before anything is compiled: by the launcher
// (src/cli/load-cli.ts) for the CLI, and again, for programs that use tsop as a library, by the
// compiler's loader (codegen/cache/code-cache.ts). One set for every command, because V8 accepts a
// code cache only under the flags it was made with (the CLI's own, and the TypeScript compiler's).
// --interrupt-budget: V8 optimises a function once it has run a budget of bytecode (66 KB). In a
// process that parses, binds and walks a project once and exits, much of that optimising, on a
// second thread, is spent on compiler functions that are done before the optimised code is ready:
// four times the budget cut an analysis's CPU time by a quarter to a third (docs/generate.md).
// --verify-snapshot-checksum: V8 then writes a checksum into each code cache and checks it before
// using one; without it a release build does not look at the bytes, and a damaged cache file
// stopped the process with a fatal error in V8's deserializer instead of being recompiled.
export const PROCESS_V8_FLAGS = "--interrupt-budget=270336 --verify-snapshot-checksum";
