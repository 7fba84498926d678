// What `tsop version` prints, without commander: the start-up fast path (fast-path.ts) prints it too.
import { CATALOG_INIT_IMAGE, KUBERNETES_SCHEMAS_VERSION, OLM_VERSION, OPM_IMAGE } from "../common/pins.js";
import { tsopVersion } from "../common/version.js";

export function versionInfo() {
  return {
    tsop: tsopVersion(),
    node: process.version,
    olm: OLM_VERSION,
    opmImage: OPM_IMAGE,
    catalogInitImage: CATALOG_INIT_IMAGE,
    kubernetes: KUBERNETES_SCHEMAS_VERSION,
  };
}

export function versionText(info = versionInfo()): string {
  return [
    `tsop ${info.tsop}`,
    `node ${info.node}`,
    `OLM (default for olm install) ${info.olm}`,
    `opm image (run bundle) ${info.opmImage}`,
    `catalog init image ${info.catalogInitImage}`,
    `Kubernetes (built-in type schemas of generate) ${info.kubernetes}`,
  ].join("\n");
}
