// The ClusterServiceVersion state machine (§6.5): finalizer, OperatorGroup association and
// install-mode check, Pending → InstallReady → Installing → Succeeded, Failed with OLM's reasons,
// replacement (Replacing → Deleting), and the Deployments OLM creates from the install strategy.
import type { KubeObject } from "../../../src/kube/objects.js";
import { deploymentReady, inNamespace, key, type ModelContext, OLM } from "./context.js";
import { hash } from "./catalog.js";
import { requiredInstallMode } from "./operatorgroups.js";

export const CSV_FINALIZER = "operators.coreos.com/csv-cleanup";
/** Failed reasons OLM re-evaluates on every sync and leaves once the pre-checks pass. */
const RECHECKED = new Set([
  "NoOperatorGroup",
  "TooManyOperatorGroups",
  "UnsupportedOperatorGroup",
  "NoTargetNamespaces",
  "InterOperatorGroupOwnerConflict",
  "CannotModifyStaticOperatorGroupProvidedAPIs",
]);

interface Transition {
  phase: string;
  reason: string;
  message: string;
}

export async function syncCsvs(ctx: ModelContext): Promise<void> {
  for (const csv of ctx.snap.csvs) {
    if (csv.status?.reason === "Copied" || csv.metadata.labels?.["olm.copiedFrom"]) continue;
    await syncCsv(ctx, csv);
  }
}

async function syncCsv(ctx: ModelContext, csv: KubeObject): Promise<void> {
  const finalizers = csv.metadata.finalizers ?? [];
  if (csv.metadata.deletionTimestamp) {
    if (finalizers.includes(CSV_FINALIZER)) {
      await cleanupClusterRbac(ctx, csv);
      await ctx.client.mergePatch(ref(csv), {
        metadata: { finalizers: finalizers.filter((f) => f !== CSV_FINALIZER) },
      });
    }
    return;
  }
  if (!finalizers.includes(CSV_FINALIZER)) {
    await ctx.client.mergePatch(ref(csv), { metadata: { finalizers: [...finalizers, CSV_FINALIZER] } });
    return;
  }
  const status = csv.status ?? {};
  const phase: string = status.phase ?? "";

  // Pre-checks: OperatorGroup association and install modes.
  const groups = inNamespace(ctx.snap.operatorGroups, csv.metadata.namespace);
  const forced = ctx.faults.csvFailure.get(key(csv));
  if (forced) return transition(ctx, csv, { phase: "Failed", ...forced });
  if (groups.length === 0) {
    return transition(ctx, csv, {
      phase: "Failed",
      reason: "NoOperatorGroup",
      message: "csv in namespace with no operatorgroups",
    });
  }
  if (groups.length > 1) {
    return transition(ctx, csv, {
      phase: "Failed",
      reason: "TooManyOperatorGroups",
      message: `csv created in namespace with multiple operatorgroups, can't pick one automatically`,
    });
  }
  const og = groups[0]!;
  const targets = og.status?.namespaces as string[] | undefined;
  if (!targets) return; // the group's status is not computed yet
  const annotations = csv.metadata.annotations ?? {};
  const wanted = {
    "olm.operatorGroup": og.metadata.name ?? "",
    "olm.operatorNamespace": og.metadata.namespace ?? "",
    "olm.targetNamespaces": [...targets].sort().join(","),
  };
  if (Object.entries(wanted).some(([k, v]) => annotations[k] !== v)) {
    await ctx.client.mergePatch(ref(csv), { metadata: { annotations: wanted } });
    return;
  }
  if (targets.length === 0) {
    return transition(ctx, csv, {
      phase: "Failed",
      reason: "NoTargetNamespaces",
      message: "no targetNamespaces are matched operatorgroups namespace selection",
    });
  }
  const modes = (csv.spec?.installModes ?? []) as Array<{ type: string; supported: boolean }>;
  if (modes.length === 0) {
    return transition(ctx, csv, {
      phase: "Failed",
      reason: "InvalidInstallModes",
      message: "no install modes defined",
    });
  }
  const needed = requiredInstallMode(targets, csv.metadata.namespace ?? "");
  const supported = needed?.every((m) => modes.some((x) => x.type === m && x.supported));
  if (!needed || !supported) {
    const mode = needed?.[0] ?? "unknown";
    return transition(ctx, csv, {
      phase: "Failed",
      reason: "UnsupportedOperatorGroup",
      message: `${mode} InstallModeType not supported, cannot configure to watch ${targets.map((t) => (t === "" ? "all namespaces" : t)).join(",")}`,
    });
  }
  const replacement = ctx.snap.csvs.find(
    (c) => c.spec?.replaces === csv.metadata.name && c.metadata.namespace === csv.metadata.namespace,
  );

  switch (phase) {
    case "":
      return transition(ctx, csv, {
        phase: "Pending",
        reason: "RequirementsUnknown",
        message: "requirements not yet checked",
      });
    case "Pending": {
      const unmet = requirements(ctx, csv);
      if (unmet.length > 0) {
        return transition(
          ctx,
          csv,
          {
            phase: "Pending",
            reason: "RequirementsNotMet",
            message: "one or more requirements couldn't be found",
          },
          {
            requirementStatus: unmet,
          },
        );
      }
      // An upgrade waits until the CSV it replaces is being replaced; a Failed one never is (no
      // fail-forward), so the new CSV waits, as with real OLM.
      const old = csv.spec?.replaces
        ? inNamespace(ctx.snap.csvs, csv.metadata.namespace).find(
            (c) => c.metadata.name === csv.spec.replaces,
          )
        : undefined;
      if (old && !["Replacing", "Deleting"].includes(old.status?.phase ?? "")) return;
      return transition(
        ctx,
        csv,
        {
          phase: "InstallReady",
          reason: "AllRequirementsMet",
          message: "all requirements found, attempting install",
        },
        { requirementStatus: [] },
      );
    }
    case "InstallReady":
      await installDeployments(ctx, csv);
      return transition(ctx, csv, {
        phase: "Installing",
        reason: "InstallSucceeded",
        message: "waiting for install components to report healthy",
      });
    case "Installing": {
      const check = installCheck(ctx, csv);
      if (check.ready)
        return transition(ctx, csv, {
          phase: "Succeeded",
          reason: "InstallSucceeded",
          message: "install strategy completed with no errors",
        });
      if (check.deadline)
        return transition(ctx, csv, { phase: "Failed", reason: "InstallCheckFailed", message: check.reason });
      const since = Date.parse(status.lastTransitionTime ?? "") || ctx.now;
      if (ctx.now - since > ctx.options.delays.installTimeoutMs) {
        return transition(ctx, csv, {
          phase: "Failed",
          reason: "InstallCheckFailed",
          message: "install timeout",
        });
      }
      ctx.wakeAt(since + ctx.options.delays.installTimeoutMs + 1);
      return transition(ctx, csv, {
        phase: "Installing",
        reason: "InstallWaiting",
        message: `installing: ${check.reason}`,
      });
    }
    case "Succeeded": {
      if (replacement) {
        return transition(ctx, csv, {
          phase: "Replacing",
          reason: "BeingReplaced",
          message: `being replaced by csv: ${replacement.metadata.name}`,
        });
      }
      const unmet = requirements(ctx, csv);
      if (unmet.length > 0)
        return transition(
          ctx,
          csv,
          { phase: "Failed", reason: "RequirementsNotMet", message: "requirements no longer met" },
          { requirementStatus: unmet },
        );
      const check = installCheck(ctx, csv);
      if (!check.ready)
        return transition(ctx, csv, {
          phase: "Failed",
          reason: "ComponentUnhealthy",
          message: `installing: ${check.reason}`,
        });
      return;
    }
    case "Failed": {
      if (RECHECKED.has(status.reason ?? "")) {
        return transition(ctx, csv, {
          phase: "Pending",
          reason: "RequirementsUnknown",
          message: "requirements not yet checked",
        });
      }
      if (requirements(ctx, csv).length > 0) {
        return transition(ctx, csv, {
          phase: "Pending",
          reason: "RequirementsNotMet",
          message: "one or more requirements couldn't be found",
        });
      }
      const check = installCheck(ctx, csv);
      if (check.ready)
        return transition(ctx, csv, {
          phase: "Succeeded",
          reason: "InstallSucceeded",
          message: "install strategy completed with no errors",
        });
      if (status.reason === "InstallCheckFailed" && status.message === "install timeout") return; // stays failed until changed
      return transition(ctx, csv, {
        phase: "Pending",
        reason: "NeedsReinstall",
        message: "installing: deployment changed, reinstalling",
      });
    }
    case "Replacing": {
      if (
        csv.spec?.replaces &&
        inNamespace(ctx.snap.csvs, csv.metadata.namespace).some((c) => c.metadata.name === csv.spec.replaces)
      )
        return;
      if (replacement?.status?.phase === "Succeeded") {
        return transition(ctx, csv, {
          phase: "Deleting",
          reason: "Replaced",
          message: "has been replaced by a newer ClusterServiceVersion that has successfully installed.",
        });
      }
      return;
    }
    case "Deleting":
      if (!stillDwelling(ctx, csv)) await ctx.client.delete(ref(csv));
      return;
    default:
      return;
  }
}

function ref(obj: KubeObject) {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name ?? "",
  };
}

function stillDwelling(ctx: ModelContext, csv: KubeObject): boolean {
  const since = Date.parse(csv.status?.lastTransitionTime ?? "");
  if (!since) return false;
  const due = since + ctx.options.delays.csvPhaseMs;
  if (ctx.now < due) {
    ctx.wakeAt(due);
    return true;
  }
  return false;
}

/** Sets phase/reason/message (and conditions history) when they change; honours the dwell delay. */
async function transition(
  ctx: ModelContext,
  csv: KubeObject,
  next: Transition,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const status = csv.status ?? {};
  if (status.phase === next.phase && status.reason === next.reason && status.message === next.message) return;
  if (status.phase && status.phase !== next.phase && stillDwelling(ctx, csv)) return;
  const time = new Date(ctx.now).toISOString();
  const phaseChanged = status.phase !== next.phase;
  const conditions = [...((status.conditions ?? []) as unknown[])];
  if (phaseChanged || status.reason !== next.reason) {
    conditions.push({
      phase: next.phase,
      reason: next.reason,
      message: next.message,
      lastUpdateTime: time,
      lastTransitionTime: time,
    });
  }
  await ctx.patchStatus(csv, {
    ...extra,
    phase: next.phase,
    reason: next.reason,
    message: next.message,
    lastUpdateTime: time,
    lastTransitionTime: phaseChanged ? time : (status.lastTransitionTime ?? time),
    conditions: conditions.slice(-20),
  });
  await ctx.event(csv, next.phase === "Failed" ? "Warning" : "Normal", next.reason, next.message);
  if (ctx.options.delays.csvPhaseMs > 0) ctx.wakeAt(ctx.now + ctx.options.delays.csvPhaseMs);
}

/** Owned and required CRDs present and Established; service accounts of the permissions exist. */
function requirements(ctx: ModelContext, csv: KubeObject): Array<Record<string, unknown>> {
  const unmet: Array<Record<string, unknown>> = [];
  const crds = csv.spec?.customresourcedefinitions ?? {};
  for (const def of [
    ...((crds.owned ?? []) as Array<{ name: string }>),
    ...((crds.required ?? []) as Array<{ name: string }>),
  ]) {
    const crd = ctx.snap.crds.find((c) => c.metadata.name === def.name);
    const established = ((crd?.status?.conditions ?? []) as Array<{ type: string; status: string }>).some(
      (c) => c.type === "Established" && c.status === "True",
    );
    if (!established) {
      unmet.push({
        group: "apiextensions.k8s.io",
        version: "v1",
        kind: "CustomResourceDefinition",
        name: def.name,
        status: crd ? "NotPresent" : "NotPresent",
        message: crd ? "CRD is not yet established" : "CRD is not present",
      });
    }
  }
  return unmet;
}

/** OLM's install check for the deployment strategy. */
function installCheck(
  ctx: ModelContext,
  csv: KubeObject,
): { ready: boolean; reason: string; deadline?: boolean } {
  for (const spec of (csv.spec?.install?.spec?.deployments ?? []) as Array<{ name: string }>) {
    const dep = inNamespace(ctx.snap.deployments, csv.metadata.namespace).find(
      (d) => d.metadata.name === spec.name,
    );
    if (!dep || dep.metadata.labels?.["olm.owner"] !== csv.metadata.name) {
      return {
        ready: false,
        reason: `waiting for deployment ${spec.name} to become ready: deployment "${spec.name}" not found`,
      };
    }
    const r = deploymentReady(dep);
    if (!r.ready) {
      const out: { ready: boolean; reason: string; deadline?: boolean } = {
        ready: false,
        reason: `waiting for deployment ${spec.name} to become ready: ${r.reason}`,
      };
      if (r.deadline) out.deadline = true;
      return out;
    }
  }
  return { ready: true, reason: "" };
}

/** Deployments from the CSV, labelled and owned as OLM does (replacing same-named ones wholesale). */
async function installDeployments(ctx: ModelContext, csv: KubeObject): Promise<void> {
  const name = csv.metadata.name ?? "";
  const namespace = csv.metadata.namespace ?? "";
  for (const d of (csv.spec?.install?.spec?.deployments ?? []) as Array<{
    name: string;
    spec: Record<string, unknown>;
    label?: Record<string, string>;
  }>) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep edits of an unstructured pod template
    const spec = JSON.parse(JSON.stringify(d.spec ?? {})) as Record<string, any>;
    spec.template ??= {};
    const template = spec.template;
    template.metadata ??= {};
    template.metadata.annotations = {
      ...(template.metadata.annotations ?? {}),
      ...(csv.metadata.annotations ?? {}),
    };
    for (const c of (template.spec?.containers ?? []) as Array<{
      env?: Array<{ name: string; value?: string }>;
    }>) {
      c.env = [
        ...(c.env ?? []).filter((e) => e.name !== "OPERATOR_CONDITION_NAME"),
        { name: "OPERATOR_CONDITION_NAME", value: name },
      ];
    }
    spec.revisionHistoryLimit = 1;
    const obj = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: d.name,
        namespace,
        labels: {
          ...(d.label ?? {}),
          "olm.managed": "true",
          "olm.owner": name,
          "olm.owner.namespace": namespace,
          "olm.owner.kind": "ClusterServiceVersion",
          "olm.deployment-spec-hash": hash(JSON.stringify(d.spec ?? {})).slice(0, 16),
        },
        ownerReferences: [
          {
            apiVersion: `${OLM}/v1alpha1`,
            kind: "ClusterServiceVersion",
            name,
            uid: csv.metadata.uid ?? "",
            controller: false,
            blockOwnerDeletion: false,
          },
        ],
      },
      spec,
    };
    await ctx.client.apply(obj, "olm");
  }
}

async function cleanupClusterRbac(ctx: ModelContext, csv: KubeObject): Promise<void> {
  const selector = `olm.owner=${csv.metadata.name},olm.owner.namespace=${csv.metadata.namespace},olm.owner.kind=ClusterServiceVersion`;
  for (const kind of ["ClusterRoleBinding", "ClusterRole"]) {
    const { items } = await ctx.client.list("rbac.authorization.k8s.io/v1", kind, {
      labelSelector: selector,
    });
    for (const item of items) await ctx.client.delete(ref(item));
  }
}
