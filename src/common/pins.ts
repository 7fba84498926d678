// Versions of outside components tsop pins, shown by `tsop version`. Change them here only.

/** OLM release installed by `tsop olm install` when no --version is given. */
export const OLM_VERSION = "v0.28.0";

/** Image that serves file-based catalogs for `tsop run bundle` (opm serve). */
export const OPM_IMAGE = "quay.io/operator-framework/opm:v1.47.0";

/**
 * Init image that unpacks catalog ConfigMaps next to the opm container in the registry pod: the opm
 * image itself (its distroless/static:debug base has busybox's sh and gzip in /busybox), so a run
 * pulls nothing from docker.io (rate limits, disconnected clusters) and only one image in all.
 */
export const CATALOG_INIT_IMAGE = OPM_IMAGE;
