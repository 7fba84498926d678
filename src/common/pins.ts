// Versions of outside components tsop pins, shown by `tsop version`. Change them here only.

/** OLM release installed by `tsop olm install` when no --version is given. */
export const OLM_VERSION = "v0.28.0";

/** Image that serves file-based catalogs for `tsop run bundle` (opm serve). */
export const OPM_IMAGE = "quay.io/operator-framework/opm:v1.47.0";

/** Init image that unpacks catalog ConfigMaps next to the opm container in the registry pod. */
export const CATALOG_INIT_IMAGE = "docker.io/library/busybox:1.36";
