// The TypeScript compiler, compiled by node:vm and run as CommonJS (cache/code-cache.ts: with V8's
// code cache when generate keeps one; compiler-source.ts: from tsop's minified copy): importing
// typescript.js (9 MB of CommonJS) through Node's ESM loader costs ~0.3 s more, as the loader first
// works out the file's format and scans it for export names. By
// convention in src/codegen, `ts.` is this runtime value and `TS.` a type
// (`import type TS from "typescript"`).
import type TS from "typescript";
import { loadTypeScript } from "./cache/code-cache.js";
import { compilerSource } from "./compiler-source.js";

export const ts = loadTypeScript(compilerSource()) as typeof TS;
