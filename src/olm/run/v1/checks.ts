// The wait checks of the OLM v1 path, pure functions of the object: a ClusterCatalog serving the
// pushed image (its resolved source is that digest), and a ClusterExtension whose installed bundle
// is the pinned version. Progressing=True/Retrying is OLM v1 still trying (the message is the
// status line); Progressing reason Blocked is a state it does not leave by itself.
import type { KubeObject } from "../../../kube/objects.js";
import type { CheckResult } from "../../../kube/wait.js";

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

function conditions(obj: KubeObject | undefined): Condition[] {
  return ((obj?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter(
    (c) => typeof c?.type === "string",
  );
}

const condition = (obj: KubeObject | undefined, type: string) => conditions(obj).find((c) => c.type === type);

/** One line per condition: `Installed=False (Failed): message`. */
export function v1ConditionLines(obj: KubeObject | undefined): string[] {
  return conditions(obj).map(
    (c) =>
      `condition ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ""}${c.message ? `: ${c.message}` : ""}`,
  );
}

function blocked(obj: KubeObject | undefined, what: string): string | undefined {
  const progressing = condition(obj, "Progressing");
  return progressing?.reason === "Blocked" ? `${what}: ${progressing.message ?? "Blocked"}` : undefined;
}

/** Serving=True with `image` (image@digest) as the resolved source. */
export function catalogServingCheck(image: string) {
  return (obj: KubeObject | undefined): CheckResult => {
    if (!obj) return { done: false, status: "not created yet" };
    const failed = blocked(obj, "catalogd cannot serve the catalog");
    if (failed) return { done: false, status: failed, failed };
    const resolved = (obj.status as { resolvedSource?: { image?: { ref?: string } } } | undefined)
      ?.resolvedSource?.image?.ref;
    const serving = condition(obj, "Serving")?.status === "True";
    if (serving && resolved === image) return { done: true, status: "Serving" };
    const progressing = condition(obj, "Progressing");
    return {
      done: false,
      status: progressing?.message
        ? `${progressing.reason ?? "Progressing"}: ${progressing.message}`
        : serving
          ? `serving ${resolved ?? "another image"}, not yet ${image}`
          : "not serving yet",
    };
  };
}

/** Installed=True with `version` as the installed bundle's version. */
export function extensionInstalledCheck(version: string) {
  return (obj: KubeObject | undefined): CheckResult => {
    if (!obj) return { done: false, status: "not created yet" };
    const failed = blocked(obj, "OLM v1 will not install the bundle");
    if (failed) return { done: false, status: failed, failed };
    const installed = condition(obj, "Installed");
    const bundle = (obj.status as { install?: { bundle?: { name?: string; version?: string } } } | undefined)
      ?.install?.bundle;
    if (installed?.status === "True" && bundle?.version === version)
      return { done: true, status: `Installed ${bundle.name ?? version}` };
    const progressing = condition(obj, "Progressing");
    const message = progressing?.message || installed?.message;
    return {
      done: false,
      status: message ? `${progressing?.reason ?? installed?.reason ?? ""}: ${message}` : "not installed yet",
    };
  };
}
