// The admission plugin shape: built-in kinds' defaulting and validation (builtins.ts), CRDs' own
// (crd.ts), run by the engine on every external write. Its own module so the plugins and the
// engine that runs them do not import each other.
import type { FieldError } from "./status.js";
import type { KObj, ResourceDef } from "./types.js";

/** Per-resource admission: defaulting (mutate) and validation, run on every external write. */
export interface Admission {
  appliesTo(def: ResourceDef): boolean;
  mutate?(def: ResourceDef, obj: KObj, old: KObj | undefined): void;
  validate?(def: ResourceDef, obj: KObj, old: KObj | undefined): FieldError[];
}
