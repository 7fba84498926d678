// Install modes: parsing --install-mode, choosing the OperatorGroup targets a CSV supports, and
// checking an existing OperatorGroup against the CSV (OLM's rules, spec §2.6 and §6.7), all before
// anything is written to the cluster.
import { InvalidInputError, UsageError } from "../../common/errors.js";
import type { KubeObject } from "../../kube/objects.js";
import { isDns1123Label } from "./names.js";

export const INSTALL_MODE_TYPES = [
  "AllNamespaces",
  "OwnNamespace",
  "SingleNamespace",
  "MultiNamespace",
] as const;
export type InstallModeType = (typeof INSTALL_MODE_TYPES)[number];

export interface InstallModeFlag {
  type: InstallModeType;
  namespaces: string[];
}

export interface ResolvedInstallMode {
  type: InstallModeType;
  /** OperatorGroup spec.targetNamespaces; empty means all namespaces. */
  targetNamespaces: string[];
  /** How it was chosen, for messages ("operator-group": the namespace's existing group decides). */
  source: "flag" | "csv" | "operator-group";
}

const USAGE_HINT =
  "use AllNamespaces, OwnNamespace, SingleNamespace=<namespace> or MultiNamespace=<ns1>,<ns2>";

/** Parses `Type` or `Type=ns1,ns2`. */
export function parseInstallMode(text: string): InstallModeFlag {
  const eq = text.indexOf("=");
  const typeText = (eq < 0 ? text : text.slice(0, eq)).trim();
  const type = INSTALL_MODE_TYPES.find((t) => t.toLowerCase() === typeText.toLowerCase());
  if (!type)
    throw new UsageError(`unknown install mode "${typeText}" in --install-mode "${text}"`, {
      hint: USAGE_HINT,
    });
  const namespaces =
    eq < 0
      ? []
      : [
          ...new Set(
            text
              .slice(eq + 1)
              .split(",")
              .map((n) => n.trim())
              .filter((n) => n !== ""),
          ),
        ].sort();
  const bad = namespaces.filter((n) => !isDns1123Label(n));
  if (bad.length > 0) {
    throw new UsageError(
      `--install-mode "${text}": ${bad.map((b) => `"${b}"`).join(", ")} is not a valid namespace name`,
      {
        hint: USAGE_HINT,
      },
    );
  }
  if ((type === "AllNamespaces" || type === "OwnNamespace") && namespaces.length > 0) {
    throw new UsageError(`--install-mode ${type} takes no namespaces (got "${text}")`, { hint: USAGE_HINT });
  }
  if (type === "SingleNamespace" && namespaces.length !== 1) {
    throw new UsageError(`--install-mode SingleNamespace needs exactly one namespace (got "${text}")`, {
      hint: USAGE_HINT,
    });
  }
  if (type === "MultiNamespace" && namespaces.length < 1) {
    throw new UsageError(`--install-mode MultiNamespace needs at least one namespace (got "${text}")`, {
      hint: USAGE_HINT,
    });
  }
  return { type, namespaces };
}

export function supportedModes(csv: KubeObject): InstallModeType[] {
  const modes = (csv.spec?.installModes ?? []) as Array<{ type?: string; supported?: boolean }>;
  return INSTALL_MODE_TYPES.filter((t) => modes.some((m) => m.type === t && m.supported === true));
}

/** The install mode and OperatorGroup targets for the operator namespace `namespace`. */
export function resolveInstallMode(
  csv: KubeObject,
  namespace: string,
  flag: InstallModeFlag | undefined,
): ResolvedInstallMode {
  const csvName = csv.metadata.name ?? "the CSV";
  const supported = supportedModes(csv);
  if (supported.length === 0) {
    throw new InvalidInputError(
      `ClusterServiceVersion "${csvName}" is not installable: it supports no install mode`,
      {
        hint: "set spec.installModes in the CSV (e.g. OwnNamespace and AllNamespaces supported: true) and rebuild the bundle",
      },
    );
  }
  if (flag) {
    if (!supported.includes(flag.type)) {
      throw new UsageError(
        `ClusterServiceVersion "${csvName}" does not support install mode ${flag.type} (it supports: ${supported.join(", ")})`,
        { hint: `pick one of the supported modes with --install-mode` },
      );
    }
    if (flag.type === "SingleNamespace" && flag.namespaces[0] === namespace) {
      throw new UsageError(
        `--install-mode SingleNamespace=${namespace} targets the operator's own namespace; that is OwnNamespace`,
        { hint: "use --install-mode OwnNamespace" },
      );
    }
    return {
      type: flag.type,
      targetNamespaces: targetsFor(flag.type, namespace, flag.namespaces),
      source: "flag",
    };
  }
  if (supported.includes("AllNamespaces"))
    return { type: "AllNamespaces", targetNamespaces: [], source: "csv" };
  if (supported.includes("OwnNamespace"))
    return { type: "OwnNamespace", targetNamespaces: [namespace], source: "csv" };
  // operator-sdk creates an all-namespaces group here, which OLM then rejects; say what to pass instead.
  throw new UsageError(
    `ClusterServiceVersion "${csvName}" supports only ${supported.join(" and ")}: tsop cannot guess the target namespaces`,
    {
      hint: supported.includes("SingleNamespace")
        ? "pass --install-mode SingleNamespace=<namespace to watch>"
        : "pass --install-mode MultiNamespace=<ns1>,<ns2>",
    },
  );
}

function targetsFor(type: InstallModeType, namespace: string, namespaces: string[]): string[] {
  if (type === "AllNamespaces") return [];
  if (type === "OwnNamespace") return [namespace];
  return [...namespaces].sort();
}

/** The namespaces an OperatorGroup selects ("" = all), as OLM computes status.namespaces. */
export function groupSelection(og: KubeObject): string[] | undefined {
  const fromStatus = og.status?.namespaces;
  if (Array.isArray(fromStatus) && fromStatus.length > 0) return [...(fromStatus as string[])].sort();
  const targets = og.spec?.targetNamespaces;
  if (Array.isArray(targets) && targets.length > 0) return [...(targets as string[])].sort();
  const selector = og.spec?.selector as { matchLabels?: object; matchExpressions?: unknown[] } | undefined;
  const hasSelector =
    selector &&
    (Object.keys(selector.matchLabels ?? {}).length > 0 || (selector.matchExpressions ?? []).length > 0);
  return hasSelector ? undefined : [""];
}

/** The install modes a CSV needs to run under a group selecting `selection` (§6.7). */
export function modesNeeded(selection: string[], namespace: string): InstallModeType[] | undefined {
  if (selection.length === 0) return undefined;
  if (selection.length === 1) {
    if (selection[0] === "") return ["AllNamespaces"];
    return selection[0] === namespace ? ["OwnNamespace"] : ["SingleNamespace"];
  }
  if (selection.includes("")) return undefined;
  return selection.includes(namespace) ? ["MultiNamespace", "OwnNamespace"] : ["MultiNamespace"];
}

function describeSelection(selection: string[]): string {
  return selection.length === 1 && selection[0] === "" ? "all namespaces" : selection.join(", ");
}

/**
 * Checks that the namespace's one existing OperatorGroup lets the CSV install (and matches
 * --install-mode when given). Returns a short description for progress output.
 */
export function checkExistingGroup(
  og: KubeObject,
  csv: KubeObject,
  namespace: string,
  flag: InstallModeFlag | undefined,
): string {
  const name = og.metadata.name ?? "";
  const csvName = csv.metadata.name ?? "";
  const selection = groupSelection(og);
  if (!selection) {
    return `OperatorGroup "${name}" selects namespaces by label; OLM will check the install mode`;
  }
  const needed = modesNeeded(selection, namespace);
  const supported = supportedModes(csv);
  const hint = `install into another namespace (-n), or change or delete OperatorGroup ${namespace}/${name}`;
  if (!needed?.every((m) => supported.includes(m))) {
    throw new InvalidInputError(
      `the existing OperatorGroup ${namespace}/${name} targets ${describeSelection(selection)}, which needs install mode ${needed?.join(" + ") ?? "(an invalid selection)"}; ClusterServiceVersion "${csvName}" supports ${supported.join(", ")}`,
      { hint },
    );
  }
  if (flag) {
    const wanted = targetsFor(flag.type, namespace, flag.namespaces);
    const want = wanted.length === 0 ? [""] : wanted;
    if (JSON.stringify(want) !== JSON.stringify(selection)) {
      throw new InvalidInputError(
        `the existing OperatorGroup ${namespace}/${name} targets ${describeSelection(selection)}, not what --install-mode ${flag.type}${flag.namespaces.length ? `=${flag.namespaces.join(",")}` : ""} asks for (${describeSelection(want)})`,
        { hint: `drop --install-mode to use the existing group, or ${hint}` },
      );
    }
  }
  return `using the existing OperatorGroup "${name}" (targets ${describeSelection(selection)})`;
}

/** The install mode an existing group imposes, when its selection is known. */
export function modeOfGroup(og: KubeObject, namespace: string): ResolvedInstallMode | undefined {
  const selection = groupSelection(og);
  const needed = selection ? modesNeeded(selection, namespace) : undefined;
  if (!selection || !needed?.[0]) return undefined;
  const all = selection.length === 1 && selection[0] === "";
  return { type: needed[0], targetNamespaces: all ? [] : selection, source: "operator-group" };
}
