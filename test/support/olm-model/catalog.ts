// CatalogSource reconciliation (§6.2): spec validation, registry pod + Service for image catalogs,
// connection state from the registry pod's readiness or the address, and the catalog content the
// resolver and the PackageManifest list read.
import { createHash } from "node:crypto";
import type { KubeObject } from "../../../src/kube/objects.js";
import { Catalog, configMapFbc } from "./fbc.js";
import { inNamespace, key, type ModelContext, nowIso } from "./context.js";

export function catalogReady(cs: KubeObject | undefined): boolean {
  return cs?.status?.connectionState?.lastObservedState === "READY";
}

export async function syncCatalogs(ctx: ModelContext): Promise<void> {
  for (const cs of ctx.snap.catalogs) {
    if (cs.metadata.deletionTimestamp) continue;
    await syncCatalog(ctx, cs);
  }
}

async function syncCatalog(ctx: ModelContext, cs: KubeObject): Promise<void> {
  const spec = cs.spec ?? {};
  const status = cs.status ?? {};
  const sourceType = spec.sourceType ?? "";
  let invalid: string | undefined;
  if (sourceType === "grpc") {
    if (!spec.image && !spec.address)
      invalid = "image and address unset: at least one must be set for sourcetype: grpc";
  } else if (sourceType === "configmap" || sourceType === "internal") {
    if (!spec.configMap) invalid = "configmap name unset: must be set for sourcetype: configmap";
  } else {
    invalid = `unknown sourcetype: ${sourceType}`;
  }
  if (invalid) {
    if (status.reason !== "SpecInvalidError" || status.message !== invalid) {
      await ctx.patchStatus(cs, {
        reason: "SpecInvalidError",
        message: invalid,
        connectionState: null,
        registryService: null,
      });
    }
    return;
  }
  const next: Record<string, unknown> = {};
  if (status.reason) Object.assign(next, { reason: null, message: null });

  let address: string = spec.address ?? "";
  if (sourceType === "grpc" && spec.image && !spec.address) {
    address = await ensureRegistryPod(ctx, cs);
    if (!status.registryService?.serviceName) {
      next.registryService = {
        protocol: "grpc",
        serviceName: cs.metadata.name,
        serviceNamespace: cs.metadata.namespace,
        port: "50051",
        createdAt: nowIso(ctx.now),
      };
    }
  } else if (sourceType === "grpc" && !status.registryService) {
    next.registryService = { protocol: "grpc", createdAt: nowIso(ctx.now) };
  }

  const state = connectionState(ctx, cs, address);
  const previous = status.connectionState?.lastObservedState;
  if (state !== previous || status.connectionState?.address !== address) {
    next.connectionState = { address, lastObservedState: state, lastConnect: nowIso(ctx.now) };
    if (state !== previous) {
      await ctx.event(
        cs,
        state === "TRANSIENT_FAILURE" ? "Warning" : "Normal",
        "ConnectionStateChanged",
        `catalog ${cs.metadata.name} is ${state}`,
      );
    }
  }
  if (Object.keys(next).length > 0) await ctx.patchStatus(cs, next);
}

/** gRPC connectivity as OLM would observe it. */
function connectionState(ctx: ModelContext, cs: KubeObject, address: string): string {
  const forced = ctx.faults.catalogState.get(key(cs));
  if (forced) return forced;
  const host = address.replace(/:\d+$/, "");
  // Registry pod reached by IP (operator-sdk style) or owned by the catalog.
  const pod =
    ctx.snap.pods.find((p) => host !== "" && p.status?.podIP === host) ??
    (cs.spec?.image && !cs.spec?.address ? registryPodOf(ctx, cs) : undefined);
  if (pod) return podReady(pod) ? "READY" : podFailing(pod) ? "TRANSIENT_FAILURE" : "CONNECTING";
  // Service address: <svc>.<ns>.svc[:port] → ready when a selected pod is.
  const svcMatch = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(\.cluster\.local)?$/.exec(host);
  if (svcMatch) {
    const svc = ctx.snap.services.find(
      (s) => s.metadata.name === svcMatch[1] && s.metadata.namespace === svcMatch[2],
    );
    if (!svc) return "TRANSIENT_FAILURE";
    const selector = (svc.spec?.selector ?? {}) as Record<string, string>;
    const pods = inNamespace(ctx.snap.pods, svcMatch[2]).filter((p) =>
      Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v),
    );
    if (pods.some(podReady)) return "READY";
    return pods.some(podFailing) ? "TRANSIENT_FAILURE" : "CONNECTING";
  }
  if (cs.spec?.address && host !== "") {
    // An address the model cannot map to a pod: READY after the connect delay (simplification).
    return readyAfterDelay(ctx, cs);
  }
  if (cs.spec?.sourceType === "configmap" || cs.spec?.sourceType === "internal")
    return readyAfterDelay(ctx, cs);
  return "CONNECTING";
}

/** CONNECTING first (as OLM reports it), READY on the next pass. */
function readyAfterDelay(ctx: ModelContext, cs: KubeObject): string {
  if (cs.status?.connectionState) return "READY";
  ctx.wakeAt(ctx.now + 10);
  return "CONNECTING";
}

function podReady(pod: KubeObject): boolean {
  const ready = ((pod.status?.conditions ?? []) as Array<{ type: string; status: string }>).find(
    (c) => c.type === "Ready",
  );
  return (
    pod.status?.phase === "Running" &&
    (ready ? ready.status === "True" : true) &&
    !pod.metadata.deletionTimestamp
  );
}

function podFailing(pod: KubeObject): boolean {
  const statuses = (pod.status?.containerStatuses ?? []) as Array<{
    state?: { waiting?: { reason?: string } };
  }>;
  return (
    pod.status?.phase === "Failed" ||
    statuses.some((s) =>
      ["ErrImagePull", "ImagePullBackOff", "CrashLoopBackOff"].includes(s.state?.waiting?.reason ?? ""),
    )
  );
}

function registryPodOf(ctx: ModelContext, cs: KubeObject): KubeObject | undefined {
  return inNamespace(ctx.snap.pods, cs.metadata.namespace).find(
    (p) => p.metadata.labels?.["olm.catalogSource"] === cs.metadata.name && !p.metadata.deletionTimestamp,
  );
}

/** Registry pod and Service for an image-based catalog; returns the service address. */
async function ensureRegistryPod(ctx: ModelContext, cs: KubeObject): Promise<string> {
  const name = cs.metadata.name ?? "";
  const namespace = cs.metadata.namespace ?? "";
  const owner = {
    apiVersion: cs.apiVersion,
    kind: cs.kind,
    name,
    uid: cs.metadata.uid ?? "",
    controller: false,
    blockOwnerDeletion: false,
  };
  if (!registryPodOf(ctx, cs)) {
    await ctx.client.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        generateName: `${name}-`,
        namespace,
        labels: {
          "olm.catalogSource": name,
          "olm.managed": "true",
          "olm.pod-spec-hash": hash(cs.spec.image).slice(0, 10),
        },
        ownerReferences: [owner],
      },
      spec: {
        containers: [
          {
            name: "registry-server",
            image: cs.spec.image,
            ports: [{ name: "grpc", containerPort: 50051 }],
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ["ALL"] },
              readOnlyRootFilesystem: false,
            },
          },
        ],
        securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      },
    });
  }
  if (!ctx.snap.services.some((s) => s.metadata.name === name && s.metadata.namespace === namespace)) {
    await ctx.client.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace, labels: { "olm.managed": "true" }, ownerReferences: [owner] },
      spec: {
        selector: { "olm.catalogSource": name },
        ports: [{ name: "grpc", port: 50051, targetPort: 50051 }],
      },
    });
  }
  return `${name}.${namespace}.svc:50051`;
}

export function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The FBC a catalog serves: its ConfigMaps (owned, or spec.configMap) or a known catalog image. */
export function catalogContent(ctx: ModelContext, cs: KubeObject): Catalog {
  const texts: string[] = [];
  const namespace = cs.metadata.namespace;
  for (const cm of inNamespace(ctx.snap.configMaps, namespace)) {
    const owned = (cm.metadata.ownerReferences ?? []).some(
      (o) => o.kind === "CatalogSource" && o.name === cs.metadata.name,
    );
    if (owned || cm.metadata.name === cs.spec?.configMap) texts.push(...configMapFbc(cm));
  }
  return Catalog.parse(texts);
}
