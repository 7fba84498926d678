// The operator library: `import { … } from "tsop"`. Light by design (no CLI dependencies): it ships
// inside operator images. Declarations (decorators, schema types) are read statically by
// `tsop generate`; the runtime (manager, controllers, informers, helpers) runs the operator.
export * from "./decorators.js";
export * from "./schema.js";
