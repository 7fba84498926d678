// The shape of a check: a stable id, the suite it belongs to, its level, and a function from the
// loaded bundle (../load) to findings. The checks themselves are in checks/, listed by registry.ts.
import type { Finding, Level, LoadedBundle } from "../load/types.js";

export interface CheckContext {
  /** --k8s-version for the deprecated-API checks. */
  k8sVersion?: string;
  /** Custom categories (OPERATOR_BUNDLE_CATEGORIES JSON file contents). */
  categories?: string[];
}

export interface Check {
  id: string;
  /** "default" checks always run; the others belong to an optional suite. */
  suite: string;
  level: Level;
  description: string;
  run(bundle: LoadedBundle, ctx: CheckContext): Finding[];
}
