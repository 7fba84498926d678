// User-facing text of `tsop olm install|status|uninstall --v1`, in one place so tests can match it.
import type { Message } from "../../kube/messages.js";

export const v1Messages = {
  assetMissing: (path: string): Message => ({
    message: `${path} is missing: the OLM v1 manifests shipped with tsop are incomplete`,
    hint: "reinstall tsop; in a checkout, regenerate them with scripts/olm-v1-release/regenerate.mjs",
  }),
  assetBroken: (dir: string, detail: string): Message => ({
    message: `the OLM v1 manifests in ${dir} are not as tsop ships them: ${detail}`,
    hint: "reinstall tsop; in a checkout, regenerate them with scripts/olm-v1-release/regenerate.mjs",
  }),
  alreadyInstalled: (found: string[]): Message => ({
    message: `OLM v1 is already installed (or partly installed); found:\n${found.map((f) => `  - ${f}`).join("\n")}`,
    hint: "check it with `tsop olm status --v1`; remove it with `tsop olm uninstall --v1`, or repair an install of the same version with `tsop olm install --v1 --force`",
  }),
  otherVersion: (installed: string, shipped: string): Message => ({
    message: `OLM v1 is installed at another version (${installed}); tsop installs ${shipped}`,
    hint: "OLM v1 is not upgraded by re-applying manifests, and --force does not change that: run `tsop olm uninstall --v1` first, or keep the installed one",
  }),
  notInstalled: (): Message => ({
    message:
      "OLM v1 is not installed in this cluster (no olm.operatorframework.io CRDs, catalogd or operator-controller deployments found)",
    hint: "install it with `tsop olm install --v1`",
  }),
  extensionsRemain: (objects: string[]): Message => ({
    message: `ClusterExtensions or ClusterCatalogs remain; uninstalling OLM v1 would strand them (their finalizers need catalogd and operator-controller):\n${objects.map((o) => `  - ${o}`).join("\n")}`,
    hint: "remove them first (tsop cleanup <package> --olm v1), or pass --force to delete them, ClusterExtensions first, before OLM v1",
  }),
  flagNotForV1: (flag: string): Message => ({
    message: `${flag} does not apply with --v1: tsop ships one OLM v1 (catalogd and operator-controller) and installs it offline`,
    hint: `drop ${flag}`,
  }),
};
