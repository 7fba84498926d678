// Subscriptions and InstallPlans (§6.3, §6.4): per namespace, resolve each Subscription against its
// catalog (start at startingCSV or the channel head; upgrade to the entry that replaces the current
// CSV), unpack the bundle (a Job running the bundle image), create an InstallPlan (Manual if any
// Subscription in the namespace is Manual), execute approved plans (CRDs, service accounts, RBAC,
// the CSV with spec.replaces, other objects) and keep the Subscription's status and conditions.
import type { KubeObject } from "../../../src/kube/objects.js";
import type { OwnerReference } from "../../../src/runtime/schema.js";
import { catalogContent, catalogReady, hash } from "./catalog.js";
import { inNamespace, type ModelContext, nowIso, OLM } from "./context.js";
import type { FbcBundle } from "./fbc.js";

interface Resolved {
  sub: KubeObject;
  bundle: FbcBundle;
  replaces?: string;
  catalog: KubeObject;
}

export async function syncSubscriptions(ctx: ModelContext): Promise<void> {
  const namespaces = new Set(ctx.snap.subscriptions.map((s) => s.metadata.namespace ?? ""));
  for (const namespace of namespaces) await syncNamespace(ctx, namespace);
  for (const plan of ctx.snap.installPlans) await syncInstallPlan(ctx, plan);
}

async function setSubStatus(
  ctx: ModelContext,
  sub: KubeObject,
  patch: Record<string, unknown>,
  conditions?: Array<Record<string, unknown>>,
): Promise<boolean> {
  const status = sub.status ?? {};
  const next = { ...patch } as Record<string, unknown>;
  if (conditions) next.conditions = conditions;
  const changed = Object.entries(next).some(
    ([k, v]) => JSON.stringify(status[k] ?? null) !== JSON.stringify(v ?? null),
  );
  if (!changed) return false;
  await ctx.patchStatus(sub, { ...next, lastUpdated: nowIso(ctx.now) });
  return true;
}

function withCondition(
  sub: KubeObject,
  type: string,
  status: string,
  reason: string,
  message: string,
  now: number,
): Array<Record<string, unknown>> {
  const rest = ((sub.status?.conditions ?? []) as Array<Record<string, unknown>>).filter(
    (c) => c.type !== type,
  );
  const old = ((sub.status?.conditions ?? []) as Array<Record<string, unknown>>).find((c) => c.type === type);
  const same = old?.status === status && old?.reason === reason && old?.message === message;
  return [...rest, same ? old! : { type, status, reason, message, lastTransitionTime: nowIso(now) }];
}

function without(sub: KubeObject, ...types: string[]): Array<Record<string, unknown>> {
  return ((sub.status?.conditions ?? []) as Array<Record<string, unknown>>).filter(
    (c) => !types.includes(String(c.type)),
  );
}

async function syncNamespace(ctx: ModelContext, namespace: string): Promise<void> {
  const subs = inNamespace(ctx.snap.subscriptions, namespace).filter((s) => !s.metadata.deletionTimestamp);
  const csvs = inNamespace(ctx.snap.csvs, namespace);
  // Status from what exists: CSV present → AtLatestKnown; plan conditions.
  for (const sub of subs) {
    const current = sub.status?.currentCSV as string | undefined;
    const plan = sub.status?.installPlanRef
      ? ctx.snap.installPlans.find(
          (p) => p.metadata.name === sub.status.installPlanRef.name && p.metadata.namespace === namespace,
        )
      : undefined;
    let conditions = without(sub, "InstallPlanPending", "InstallPlanFailed", "InstallPlanMissing");
    if (sub.status?.installPlanRef && !plan) {
      conditions = [
        ...conditions,
        {
          type: "InstallPlanMissing",
          status: "True",
          reason: "ReferencedInstallPlanNotFound",
          lastTransitionTime: nowIso(ctx.now),
        },
      ];
    } else if (plan) {
      const phase = plan.status?.phase ?? "";
      if (phase === "" || ["Planning", "Installing", "RequiresApproval"].includes(phase)) {
        conditions = [
          ...conditions,
          {
            type: "InstallPlanPending",
            status: "True",
            reason: phase || "InstallPlanNotYetReconciled",
            lastTransitionTime: nowIso(ctx.now),
          },
        ];
      } else if (phase === "Failed") {
        const installed = (
          (plan.status?.conditions ?? []) as Array<{ type: string; reason?: string; message?: string }>
        ).find((c) => c.type === "Installed");
        conditions = [
          ...conditions,
          {
            type: "InstallPlanFailed",
            status: "True",
            reason: installed?.reason ?? "InstallPlanFailed",
            message: installed?.message ?? "",
            lastTransitionTime: nowIso(ctx.now),
          },
        ];
      }
    }
    const exists = current ? csvs.some((c) => c.metadata.name === current) : false;
    const patch: Record<string, unknown> = {};
    if (current && exists) Object.assign(patch, { state: "AtLatestKnown", installedCSV: current });
    else if (current)
      patch.state = sub.status?.state === "UpgradeFailed" ? "UpgradeFailed" : "UpgradePending";
    if (await setSubStatus(ctx, sub, patch, conditions)) return; // a status change ends this pass
  }
  if (subs.every((s) => s.status?.installPlanRef && s.status?.state === "UpgradePending")) return;

  const groups = inNamespace(ctx.snap.operatorGroups, namespace);
  if (groups.length !== 1) {
    const message = `expected 1 OperatorGroup in the namespace, found ${groups.length}`;
    for (const sub of subs) {
      await setSubStatus(
        ctx,
        sub,
        {},
        withCondition(sub, "ResolutionFailed", "True", "ErrorPreventedResolution", message, ctx.now),
      );
    }
    return;
  }

  const resolved: Resolved[] = [];
  for (const sub of subs) {
    const r = await resolve(ctx, sub, csvs);
    if (r === "wait") return;
    if (r) resolved.push(r);
  }
  if (resolved.length === 0) return;

  // Unpack each bundle that comes from an image (a Job in the catalog's namespace).
  for (const r of resolved) {
    const state = await unpack(ctx, r);
    if (state !== "done") return;
  }

  await createInstallPlan(ctx, namespace, subs, resolved);
}

/** The bundle a Subscription moves to next, undefined when up to date, "wait" when not resolvable yet. */
async function resolve(
  ctx: ModelContext,
  sub: KubeObject,
  csvs: KubeObject[],
): Promise<Resolved | undefined | "wait"> {
  const spec = sub.spec ?? {};
  const catalog = ctx.snap.catalogs.find(
    (c) =>
      c.metadata.name === spec.source &&
      c.metadata.namespace === (spec.sourceNamespace ?? sub.metadata.namespace),
  );
  const health = [
    {
      catalogSourceRef: {
        apiVersion: `${OLM}/v1alpha1`,
        kind: "CatalogSource",
        name: spec.source,
        namespace: spec.sourceNamespace,
      },
      healthy: catalogReady(catalog),
      // Required by the real CRD; kept while health is unchanged so the status does not churn.
      lastUpdated:
        previousHealth(sub, catalogReady(catalog)) ?? new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    },
  ];
  const catalogCondition = catalog
    ? catalogReady(catalog)
      ? withCondition(
          sub,
          "CatalogSourcesUnhealthy",
          "False",
          "AllCatalogSourcesHealthy",
          "all available catalogsources are healthy",
          ctx.now,
        )
      : withCondition(
          sub,
          "CatalogSourcesUnhealthy",
          "True",
          "UnhealthyCatalogSourceFound",
          `targeted catalogsource ${spec.sourceNamespace}/${spec.source} unhealthy`,
          ctx.now,
        )
    : withCondition(
        sub,
        "CatalogSourcesUnhealthy",
        "True",
        "NoCatalogSourcesFound",
        "dependency resolution requires at least one catalogsource",
        ctx.now,
      );
  if (await setSubStatus(ctx, sub, { catalogHealth: health }, catalogCondition)) return "wait";
  if (!catalog || !catalogReady(catalog)) return "wait";

  const content = catalogContent(ctx, catalog);
  const pkg = content.packages.get(spec.name);
  const channel = spec.channel ?? pkg?.defaultChannel ?? "";
  const current = sub.status?.currentCSV as string | undefined;
  let entry = undefined as { name: string; replaces?: string } | undefined;
  if (!current) {
    entry = spec.startingCSV
      ? content.entry(spec.name, channel, spec.startingCSV)
      : content.head(spec.name, channel);
    if (!entry) {
      const message = !pkg
        ? `no operators found in package ${spec.name} in the catalog referenced by subscription ${sub.metadata.name}`
        : spec.startingCSV
          ? `no operators found with name ${spec.startingCSV} in channel ${channel} of package ${spec.name} in the catalog referenced by subscription ${sub.metadata.name}`
          : `no operators found in channel ${channel} of package ${spec.name} in the catalog referenced by subscription ${sub.metadata.name}`;
      await setSubStatus(
        ctx,
        sub,
        {},
        withCondition(
          sub,
          "ResolutionFailed",
          "True",
          "ConstraintsNotSatisfiable",
          `constraints not satisfiable: ${message}`,
          ctx.now,
        ),
      );
      return "wait";
    }
  } else {
    if (!csvs.some((c) => c.metadata.name === current)) return undefined; // still installing
    entry = content.replacementOf(spec.name, channel, current);
    if (!entry) return undefined; // at the head
  }
  const bundle = content.bundles.get(entry.name);
  if (!bundle) return "wait";
  const unmet = unmetRequirement(ctx, sub, catalog, channel, bundle);
  if (unmet) {
    await setSubStatus(
      ctx,
      sub,
      {},
      withCondition(sub, "ResolutionFailed", "True", "ConstraintsNotSatisfiable", unmet, ctx.now),
    );
    return "wait";
  }
  if (sub.status?.conditions?.some((c: { type: string }) => c.type === "ResolutionFailed")) {
    await setSubStatus(ctx, sub, {}, without(sub, "ResolutionFailed"));
  }
  const out: Resolved = { sub, bundle, catalog };
  // Like OLM, the new CSV replaces the one installed.
  const replaces = current ?? entry.replaces;
  if (replaces) out.replaces = replaces;
  return out;
}

/**
 * Real OLM resolves a bundle's olm.gvk.required only against operators in catalogs (a CRD that is
 * merely present does not count). Nothing provides it → OLM's ConstraintsNotSatisfiable, in its words.
 * Another package provides it → real OLM installs that package too, which the model does not do: it
 * says so instead of diverging silently (use the real tier for dependencies).
 */
function unmetRequirement(
  ctx: ModelContext,
  sub: KubeObject,
  catalog: KubeObject,
  channel: string,
  bundle: FbcBundle,
): string | undefined {
  const required = bundle.properties.filter((p) => p.type === "olm.gvk.required");
  if (required.length === 0) return undefined;
  const visible = ctx.snap.catalogs.filter((c) =>
    [sub.metadata.namespace, ctx.options.namespace].includes(c.metadata.namespace),
  );
  const provided = new Set(
    visible.flatMap((c) =>
      [...catalogContent(ctx, c).bundles.values()].flatMap((b) =>
        b.properties.filter((p) => p.type === "olm.gvk").map((p) => gvkKey(p.value)),
      ),
    ),
  );
  const missing = required.find((p) => !provided.has(gvkKey(p.value)));
  if (!missing)
    return "the OLM model does not install dependencies from other packages; test this on the real bed";
  const { group, version, kind } = missing.value as Record<string, string>;
  const subName = sub.metadata.name;
  const source = `${catalog.metadata.name}/${catalog.metadata.namespace}/${channel}/${bundle.name}`;
  return [
    "constraints not satisfiable:",
    `subscription ${subName} exists, subscription ${subName} requires ${source},`,
    `bundle ${bundle.name} requires an operator providing an API with group: ${group}, version: ${version}, kind: ${kind}`,
  ].join(" ");
}

function gvkKey(value: unknown): string {
  const { group, version, kind } = (value ?? {}) as Record<string, string>;
  return `${group}/${version}/${kind}`;
}

/** Unpack Job per bundle image: "done" once it completed, "pending" while it runs or failed. */
async function unpack(ctx: ModelContext, r: Resolved): Promise<"done" | "pending"> {
  const image = r.bundle.image;
  if (!image) return "done";
  const namespace = r.catalog.metadata.namespace ?? "";
  const name = hash(image).slice(0, 63);
  const job = inNamespace(ctx.snap.jobs, namespace).find((j) => j.metadata.name === name);
  if (jobFailed(job)) {
    await setSubStatus(
      ctx,
      r.sub,
      {},
      withCondition(
        r.sub,
        "BundleUnpackFailed",
        "True",
        "BundleUnpackFailed",
        `bundle unpacking failed for ${image}`,
        ctx.now,
      ),
    );
    return "pending";
  }
  if (!job) {
    await ctx.client.create({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name,
        namespace,
        labels: { "olm.managed": "true", "operatorframework.io/bundle-unpack-ref": name },
      },
      spec: {
        backoffLimit: 3,
        ttlSecondsAfterFinished: 300,
        template: {
          metadata: { labels: { "operatorframework.io/bundle-unpack-ref": name } },
          spec: {
            restartPolicy: "Never",
            securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
            containers: [
              {
                name: "pull",
                image,
                command: ["/bin/true"],
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
              },
            ],
          },
        },
      },
    });
    await setSubStatus(
      ctx,
      r.sub,
      {},
      withCondition(
        r.sub,
        "BundleUnpacking",
        "True",
        "UnpackingInProgress",
        "unpack job not yet started",
        ctx.now,
      ),
    );
    return "pending";
  }
  if (jobComplete(job)) return "done";
  const pod = inNamespace(ctx.snap.pods, namespace).find(
    (p) =>
      p.metadata.labels?.["job-name"] === name ||
      p.metadata.labels?.["operatorframework.io/bundle-unpack-ref"] === name,
  );
  const waiting = (
    (pod?.status?.containerStatuses ?? []) as Array<{
      state?: { waiting?: { reason?: string; message?: string } };
    }>
  )
    .map((s) => s.state?.waiting)
    .find((w) => w?.reason);
  const message = waiting
    ? `unpack job not completed: Unpack pod(${namespace}/${pod?.metadata.name}) container(pull) is pending. Reason: ${waiting.reason}, Message: ${waiting.message ?? ""}`
    : "unpack job not completed";
  await setSubStatus(
    ctx,
    r.sub,
    {},
    withCondition(r.sub, "BundleUnpacking", "True", "UnpackingInProgress", message, ctx.now),
  );
  return "pending";
}

function jobComplete(job: KubeObject | undefined): boolean {
  return (
    ((job?.status?.conditions ?? []) as Array<{ type: string; status: string }>).some(
      (c) => c.type === "Complete" && c.status === "True",
    ) || (job?.status?.succeeded ?? 0) > 0
  );
}
function jobFailed(job: KubeObject | undefined): boolean {
  return ((job?.status?.conditions ?? []) as Array<{ type: string; status: string }>).some(
    (c) => c.type === "Failed" && c.status === "True",
  );
}

async function createInstallPlan(
  ctx: ModelContext,
  namespace: string,
  subs: KubeObject[],
  resolved: Resolved[],
): Promise<void> {
  const existingPlans = inNamespace(ctx.snap.installPlans, namespace);
  const generation =
    1 +
    Math.max(
      0,
      ...subs.map((s) => Number(s.status?.installPlanGeneration ?? 0)),
      ...existingPlans.map((p) => Number(p.spec?.generation ?? 0)),
    );
  const manual = subs.some((s) => s.spec?.installPlanApproval === "Manual");
  const steps = resolved.flatMap((r) => planSteps(r));
  const plan = await ctx.client.create({
    apiVersion: `${OLM}/v1alpha1`,
    kind: "InstallPlan",
    metadata: {
      generateName: "install-",
      namespace,
      ownerReferences: subs.map((s) => ({
        apiVersion: s.apiVersion,
        kind: s.kind,
        name: s.metadata.name ?? "",
        uid: s.metadata.uid ?? "",
        controller: false,
        blockOwnerDeletion: false,
      })),
    },
    spec: {
      clusterServiceVersionNames: resolved.map((r) => r.bundle.name),
      approval: manual ? "Manual" : "Automatic",
      approved: !manual,
      generation,
    },
  });
  await ctx.patchStatus(plan, {
    phase: manual ? "RequiresApproval" : "Installing",
    plan: steps,
    catalogSources: [...new Set(resolved.map((r) => r.catalog.metadata.name))],
  });
  for (const r of resolved) {
    const sub = r.sub;
    await ctx.patchStatus(sub, {
      currentCSV: r.bundle.name,
      state: "UpgradePending",
      installPlanGeneration: generation,
      installPlanRef: {
        apiVersion: plan.apiVersion,
        kind: "InstallPlan",
        name: plan.metadata.name,
        namespace,
        uid: plan.metadata.uid,
        resourceVersion: plan.metadata.resourceVersion,
      },
      installplan: {
        apiVersion: plan.apiVersion,
        kind: "InstallPlan",
        name: plan.metadata.name,
        uuid: plan.metadata.uid,
      },
      lastUpdated: nowIso(ctx.now),
      conditions: [
        ...without(sub, "BundleUnpacking", "BundleUnpackFailed", "ResolutionFailed", "InstallPlanPending"),
        {
          type: "InstallPlanPending",
          status: "True",
          reason: manual ? "RequiresApproval" : "Installing",
          lastTransitionTime: nowIso(ctx.now),
        },
      ],
    });
  }
}

/** InstallPlan steps (manifests inline: a simplification of OLM's ConfigMap references). */
function planSteps(r: Resolved): Array<Record<string, unknown>> {
  const steps: Array<Record<string, unknown>> = [];
  const objects = [...r.bundle.objects].sort((a, b) => order(a) - order(b));
  for (const obj of objects) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep edits of an unstructured manifest
    const manifest = JSON.parse(JSON.stringify(obj)) as Record<string, any>;
    if (manifest.kind === "ClusterServiceVersion") {
      manifest.spec ??= {};
      if (r.replaces) manifest.spec.replaces = r.replaces;
      else delete manifest.spec.replaces;
      manifest.metadata ??= {};
      manifest.metadata.annotations = {
        ...(manifest.metadata.annotations ?? {}),
        "operatorframework.io/properties": JSON.stringify({
          properties: r.bundle.properties.filter((p) => p.type !== "olm.bundle.object"),
        }),
      };
    }
    const [group, version] = String(manifest.apiVersion).includes("/")
      ? String(manifest.apiVersion).split("/")
      : ["", String(manifest.apiVersion)];
    steps.push({
      resolving: r.bundle.name,
      resource: {
        sourceName: r.catalog.metadata.name,
        sourceNamespace: r.catalog.metadata.namespace,
        group,
        version,
        kind: manifest.kind,
        name: manifest.metadata?.name,
        manifest: JSON.stringify(manifest),
      },
      status: "Unknown",
    });
  }
  return steps;
}

function order(obj: Record<string, unknown>): number {
  return obj.kind === "CustomResourceDefinition" ? 0 : obj.kind === "ClusterServiceVersion" ? 2 : 1;
}

async function syncInstallPlan(ctx: ModelContext, plan: KubeObject): Promise<void> {
  const phase = plan.status?.phase ?? "";
  if (phase === "Complete" || phase === "Failed" || phase === "") return;
  if (phase === "RequiresApproval") {
    if (plan.spec?.approved === true) await ctx.patchStatus(plan, { phase: "Installing", message: null });
    return;
  }
  if (phase !== "Installing") return;
  const startTime = plan.status?.startTime ?? nowIso(ctx.now);
  if (!plan.status?.startTime) {
    await ctx.patchStatus(plan, { startTime });
    return;
  }
  const namespace = plan.metadata.namespace ?? "";
  const steps = (plan.status?.plan ?? []) as Array<{
    resource: { manifest: string; kind: string };
    status: string;
  }>;
  try {
    for (const step of steps) {
      const manifest = JSON.parse(step.resource.manifest) as KubeObject;
      await executeStep(ctx, manifest, namespace);
      step.status = "Created";
    }
  } catch (error) {
    const message = `error creating resources: ${(error as Error).message.split("\n")[0]}`;
    await ctx.patchStatus(plan, {
      phase: "Failed",
      message,
      plan: steps,
      conditions: [
        {
          type: "Installed",
          status: "False",
          reason: "InstallComponentFailed",
          message,
          lastTransitionTime: nowIso(ctx.now),
        },
      ],
    });
    return;
  }
  await ctx.patchStatus(plan, {
    phase: "Complete",
    plan: steps,
    conditions: [{ type: "Installed", status: "True", lastTransitionTime: nowIso(ctx.now) }],
  });
}

async function executeStep(ctx: ModelContext, manifest: KubeObject, namespace: string): Promise<void> {
  manifest.metadata ??= {};
  if (manifest.kind === "CustomResourceDefinition") {
    await ctx.client.apply(manifest, "olm");
    return;
  }
  manifest.metadata.namespace = namespace;
  if (manifest.kind === "ClusterServiceVersion") {
    const csvName = manifest.metadata.name ?? "";
    const { object: csv } = await ctx.client.apply(manifest, "olm");
    const owner = {
      "olm.owner": csvName,
      "olm.owner.namespace": namespace,
      "olm.owner.kind": "ClusterServiceVersion",
      "olm.managed": "true",
    };
    // As OLM does, the namespaced objects it makes for the CSV are owned by it, so the garbage
    // collector removes them with the CSV (the parity test caught a ServiceAccount left behind).
    const ownerReferences: OwnerReference[] = [
      {
        apiVersion: `${OLM}/v1alpha1`,
        kind: "ClusterServiceVersion",
        name: csvName,
        uid: csv.metadata.uid ?? "",
      },
    ];
    const strategy = manifest.spec?.install?.spec ?? {};
    for (const p of (strategy.permissions ?? []) as Array<{ serviceAccountName: string; rules: unknown[] }>) {
      await ensureServiceAccount(ctx, namespace, p.serviceAccountName, owner, ownerReferences);
      const name = `${csvName}-${p.serviceAccountName}`.slice(0, 63);
      await ctx.client.apply({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name, namespace, labels: owner, ownerReferences },
        rules: p.rules,
      });
      await ctx.client.apply(
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name, namespace, labels: owner, ownerReferences },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
          subjects: [{ kind: "ServiceAccount", name: p.serviceAccountName, namespace }],
        },
        "olm",
      );
    }
    for (const p of (strategy.clusterPermissions ?? []) as Array<{
      serviceAccountName: string;
      rules: unknown[];
    }>) {
      await ensureServiceAccount(ctx, namespace, p.serviceAccountName, owner, ownerReferences);
      const name = `${csvName}-${p.serviceAccountName}-${hash(namespace).slice(0, 8)}`.slice(0, 63);
      await ctx.client.apply(
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: { name, labels: owner },
          rules: p.rules,
        },
        "olm",
      );
      await ctx.client.apply(
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name, labels: owner },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
          subjects: [{ kind: "ServiceAccount", name: p.serviceAccountName, namespace }],
        },
        "olm",
      );
    }
    return;
  }
  await ctx.client.apply(manifest, "olm");
}

async function ensureServiceAccount(
  ctx: ModelContext,
  namespace: string,
  name: string,
  labels: Record<string, string>,
  ownerReferences: OwnerReference[],
): Promise<void> {
  await ctx.client.apply(
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace, labels, ownerReferences } },
    "olm",
  );
}

function previousHealth(sub: KubeObject, healthy: boolean): string | undefined {
  const previous = (
    sub.status?.catalogHealth as Array<{ healthy?: boolean; lastUpdated?: string }> | undefined
  )?.[0];
  return previous?.healthy === healthy ? previous.lastUpdated : undefined;
}
