// What `run bundle` and `run bundle-upgrade` take for tsop's own pull of the bundle image (the
// cluster pulls it with the pull secret): the registry flags and the test seam.
import type { PullBundle } from "../../bundle/load/index.js";

export interface BundlePullOptions {
  skipTlsVerify?: boolean;
  plainHttp?: boolean | string[];
  registryConfig?: string;
  /** Test seam. */
  pull?: PullBundle;
}
