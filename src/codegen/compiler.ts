// The TypeScript compiler, loaded with require() (cache/code-cache.ts: with V8's code cache when
// generate keeps one): importing typescript.js (9 MB of CommonJS) through Node's ESM loader costs
// ~0.3 s more, as the loader first works out the file's format and scans it for export names. By
// convention in src/codegen, `ts.` is this runtime value and `TS.` a type
// (`import type TS from "typescript"`).
import type TS from "typescript";
import { loadTypeScript } from "./cache/code-cache.js";

export const ts = loadTypeScript() as typeof TS;
