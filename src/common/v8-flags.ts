// The V8 flags a tsop process runs under. V8 optimises a function once it has run a budget of
// bytecode (--interrupt-budget, 66 KB). In a process that parses, binds and walks a project once and
// exits, much of that optimising, on a second thread, is spent on compiler functions that are done
// before the optimised code is ready: four times the budget cut an analysis's CPU time by a quarter
// to a third (docs/generate.md). V8 accepts a code cache only under the flags it was made with, so
// the flags are the same for every command and set before anything is compiled: by the launcher
// (src/cli/load-cli.ts) for the CLI, and again, for programs that use tsop as a library, by the
// compiler's loader (codegen/cache/code-cache.ts).
export const PROCESS_V8_FLAGS = "--interrupt-budget=270336";
