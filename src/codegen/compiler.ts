// The TypeScript compiler, loaded with require(): importing typescript.js (9 MB of CommonJS) through
// Node's ESM loader costs ~0.3 s more, as the loader first works out the file's format and scans it
// for export names. By convention in src/codegen, `ts.` is this runtime value and `TS.` a type
// (`import type TS from "typescript"`).
import { createRequire } from "node:module";
import type TS from "typescript";

export const ts = createRequire(import.meta.url)("typescript") as typeof TS;
