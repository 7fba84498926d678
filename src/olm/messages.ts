// User-facing text of `tsop olm`, in one place so tests can match it.
import type { Message } from "../kube/messages.js";

export const messages = {
  olmMissing: (): Message => ({
    message:
      "OLM is not installed in this cluster: the CatalogSource API (operators.coreos.com/v1alpha1) is not served",
    hint: "install it with `tsop olm install`, then retry",
  }),
  badVersion: (version: string): Message => ({
    message: `"${version}" is not an OLM version`,
    hint: 'use a release such as "v0.28.0" (or "0.28.0"), or "latest"',
  }),
  latestUnresolved: (url: string, detail: string): Message => ({
    message: `cannot resolve the latest OLM release from ${url}: ${detail}`,
    hint: "pass --version with a concrete release (e.g. --version v0.28.0), or --manifests for offline use",
  }),
  downloadFailed: (url: string, detail: string): Message => ({
    message: `cannot download ${url}: ${detail}`,
    hint: "check the version and network (HTTPS_PROXY is honoured); offline, pass --manifests <dir> holding crds.yaml and olm.yaml",
  }),
  notFound404: (url: string, version: string): Message => ({
    message: `OLM release ${version} has no asset at ${url} (404)`,
    hint: "check that the release exists and ships crds.yaml and olm.yaml; some releases (e.g. v0.29.0) do not",
  }),
  notAvailableOffline: (version: string, cacheDir: string): Message => ({
    message: `OLM ${version}'s manifests are neither shipped with tsop nor cached in ${cacheDir}`,
    hint: "`tsop olm install --version <v>` downloads and caches them; or pass --manifests <dir>",
  }),
  manifestsMissing: (dir: string, file: string): Message => ({
    message: `${file} is missing from ${dir}`,
    hint: "--manifests must name a directory (or URL) holding OLM's release assets crds.yaml and olm.yaml",
  }),
  manifestsMixed: (dir: string): Message => ({
    message: `--manifests lists several paths, and ${dir} is a directory`,
    hint: "pass either one directory holding crds.yaml and olm.yaml, or YAML files joined by commas",
  }),
  manifestFileUnreadable: (file: string, detail: string): Message => ({
    message: `cannot read ${file}: ${detail}`,
    hint: "--manifests takes a directory holding crds.yaml and olm.yaml, an http(s) URL, or YAML files joined by commas",
  }),
  badManifest: (file: string, detail: string): Message => ({
    message: `${file}: ${detail}`,
    hint: "use OLM's release assets crds.yaml and olm.yaml (the CRDs and everything else) unmodified",
  }),
  versionConflict: (file: string, labelled: string, wanted: string): Message => ({
    message: `${file} is OLM ${labelled} (the packageserver CSV's olm.version label), not ${wanted}`,
    hint: `pass --version ${labelled}, or point --manifests at the ${wanted} release`,
  }),
  alreadyInstalled: (found: string[]): Message => ({
    message: `OLM is already installed (or partly installed); found:\n${found.map((f) => `  - ${f}`).join("\n")}`,
    hint: "check it with `tsop olm status`; remove it with `tsop olm uninstall`, or repair an install of the same version with `tsop olm install --force`",
  }),
  forceVersionMismatch: (installed: string, wanted: string): Message => ({
    message: `--force can only repair an install of the same version: OLM ${installed} is installed, ${wanted} was requested`,
    hint: "OLM cannot be upgraded by re-applying manifests; run `tsop olm uninstall` first",
  }),
  platformManaged: (platform: string, namespace: string): Message => ({
    message: `OLM is managed by the platform (${platform}, namespace ${namespace}); tsop does not install or remove it`,
    hint: "use the OLM that the platform provides; `tsop olm status` shows its health",
  }),
  notInstalled: (): Message => ({
    message: "OLM is not installed in this cluster (no OLM CRDs, deployments or packageserver CSV found)",
    hint: "install it with `tsop olm install`",
  }),
  versionUnknown: (): Message => ({
    message: "cannot tell which OLM version is installed: the packageserver CSV has no olm.version label",
    hint: "pass --version with the installed version",
  }),
  versionMismatch: (installed: string, wanted: string): Message => ({
    message: `OLM ${installed} is installed, but --version ${wanted} was given`,
    hint: `drop --version or pass --version ${installed}`,
  }),
  operatorsRemain: (operators: string[]): Message => ({
    message: `operators installed through OLM are still present; uninstalling OLM would remove them too:\n${operators.map((o) => `  - ${o}`).join("\n")}`,
    hint: "remove them first (tsop cleanup <package>), or pass --force to delete them together with OLM",
  }),
  installFailed: (version: string, detail: string): string => `installing OLM ${version} failed: ${detail}`,
};
