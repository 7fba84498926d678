// OperatorGroup status (§6.7): status.namespaces from targetNamespaces, the selector, or all
// namespaces ([""]), and the MultipleOperatorGroup condition when a namespace has several.
import type { KubeObject } from "../../../src/kube/objects.js";
import { inNamespace, type ModelContext, nowIso } from "./context.js";

export function targetNamespaces(og: KubeObject, namespaces: KubeObject[]): string[] {
  const targets = og.spec?.targetNamespaces as string[] | undefined;
  if (Array.isArray(targets) && targets.length > 0) return [...targets].sort();
  const selector = og.spec?.selector as { matchLabels?: Record<string, string> } | undefined;
  const match = selector?.matchLabels ?? {};
  if (!selector || Object.keys(match).length === 0) return [""];
  return namespaces
    .filter((ns) => Object.entries(match).every(([k, v]) => ns.metadata.labels?.[k] === v))
    .map((ns) => ns.metadata.name ?? "")
    .sort();
}

export async function syncOperatorGroups(ctx: ModelContext): Promise<void> {
  for (const og of ctx.snap.operatorGroups) {
    if (og.metadata.deletionTimestamp) continue;
    const namespaces = targetNamespaces(og, ctx.snap.namespaces);
    const siblings = inNamespace(ctx.snap.operatorGroups, og.metadata.namespace).length;
    const conditions =
      siblings > 1
        ? [
            {
              type: "MultipleOperatorGroup",
              status: "True",
              reason: "MultipleOperatorGroupsFound",
              message: "Multiple OperatorGroup found in the same namespace",
              lastTransitionTime: nowIso(ctx.now),
            },
          ]
        : [];
    const current = og.status ?? {};
    const sameNs = JSON.stringify(current.namespaces ?? null) === JSON.stringify(namespaces);
    const sameCond = (current.conditions ?? []).length === conditions.length;
    if (sameNs && sameCond) continue;
    await ctx.patchStatus(og, { namespaces, lastUpdated: nowIso(ctx.now), conditions });
  }
}

/** Install mode a CSV needs for the group's selection (§6.7), or undefined when the selection is invalid. */
export function requiredInstallMode(namespaces: string[], operatorNamespace: string): string[] | undefined {
  if (namespaces.length === 0) return undefined;
  if (namespaces.length === 1) {
    if (namespaces[0] === "") return ["AllNamespaces"];
    if (namespaces[0] === operatorNamespace) return ["OwnNamespace"];
    return ["SingleNamespace"];
  }
  if (namespaces.includes("")) return undefined;
  return namespaces.includes(operatorNamespace) ? ["MultiNamespace", "OwnNamespace"] : ["MultiNamespace"];
}
