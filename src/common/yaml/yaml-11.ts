// The schema option every writer and editor of tsop shares (write.ts, emit.ts, edit.ts).
import type { SchemaOptions } from "yaml";

/** Schema option that makes the yaml package quote strings a YAML 1.1 reader would misread. */
export const YAML_11_SAFE = { compat: "yaml-1.1" } as const satisfies SchemaOptions;
