// One watch on apiextensions.k8s.io/v1 CustomResourceDefinitions, shared by every optional kind
// (crd-gated-informer.ts): it answers whether a group/version/kind is served now (its CRD exists,
// is Established and serves that version) and tells subscribers when any CRD changes. A watch, not
// periodic discovery: a CRD becomes usable within one event instead of one polling period, and the
// cost is one watch stream instead of a discovery request per group every period. When the
// operator may not list CRDs (403: its role lacks the rule), the watch gives up and every optional
// kind counts as served, so the informers behave as without `optional` (and say why in the log).
import { ApiError } from "../connect/errors.js";
import type { ResourceMapping } from "../connect/mapper.js";
import { Informer, type InformerObject, type InformerSettings } from "./informer.js";
import type { CacheTransform } from "./transform.js";

const CRD_MAPPING: ResourceMapping = {
  apiVersion: "apiextensions.k8s.io/v1",
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  namespaced: false,
};

export interface ServedKind {
  apiVersion: string;
  group: string;
  version: string;
  kind: string;
}

/** What the CRD watch knows about one kind. */
export interface CrdState {
  served: boolean;
  /** The mapping the CRD declares (plural, scope), when one names the kind. */
  mapping?: ResourceMapping;
  /** The CRD's name, when one names the kind. */
  crdName?: string;
  /** Why it is not served, for logs and readiness. */
  why?: string;
}

interface CrdObject extends InformerObject {
  spec?: {
    group?: string;
    scope?: string;
    names?: { kind?: string; plural?: string };
    versions?: Array<{ name?: string; served?: boolean }>;
  };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

/**
 * What the watch keeps of a CRD: its names, scope, versions served and conditions. Schemas (often
 * most of a CRD, up to megabytes for large operators) are dropped, so watching every CRD of the
 * cluster costs little memory.
 */
function keepServingFields(obj: InformerObject): InformerObject {
  const crd = obj as CrdObject;
  return {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata: {
      name: crd.metadata?.name,
      resourceVersion: crd.metadata?.resourceVersion,
      ...(crd.metadata?.deletionTimestamp ? { deletionTimestamp: crd.metadata.deletionTimestamp } : {}),
    },
    spec: {
      group: crd.spec?.group,
      scope: crd.spec?.scope,
      names: { kind: crd.spec?.names?.kind, plural: crd.spec?.names?.plural },
      versions: (crd.spec?.versions ?? []).map((v) => ({ name: v.name, served: v.served })),
    },
    status: { conditions: (crd.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status })) },
  } as CrdObject;
}

export class CrdWatch {
  private informer: Informer<CrdObject> | undefined;
  private readonly listeners = new Set<() => void>();
  /** The CRD list was refused (403): optional kinds are taken as served. */
  private forbidden = false;
  private settled = false;
  private readonly settleWaiters: Array<() => void> = [];

  constructor(
    private readonly rest: ConstructorParameters<typeof Informer>[0],
    private readonly settings: InformerSettings,
  ) {}

  /** Starts the watch (once; later calls do nothing). */
  start(): void {
    if (this.informer) return;
    const log = this.settings.logger.named("crd-watch");
    const informer = new Informer<CrdObject>(this.rest, CRD_MAPPING, {
      ...this.settings,
      logger: log,
      transform: keepServingFields as CacheTransform,
      onError: (err) => {
        if (!(err instanceof ApiError) || err.status !== 403 || this.forbidden) return;
        this.forbidden = true;
        log.warn(
          "may not list CustomResourceDefinitions; optional kinds are watched as if their CRDs were installed",
          {
            err: err as Error,
            hint: 'grant get, list, watch on customresourcedefinitions (group "apiextensions.k8s.io"); `tsop generate` adds it for optional kinds',
          },
        );
        void informer.stop();
        this.settle();
        this.changed();
      },
    });
    informer.addHandler({
      onAdd: () => this.changed(),
      onUpdate: (old, obj) => old !== obj && this.changed(),
      onDelete: () => this.changed(),
    });
    this.informer = informer;
    informer.start();
    void informer.waitForSync().then(() => {
      this.settle();
      this.changed();
    });
  }

  /** Resolves once the watch knows the CRDs (or gave up on a 403, or stopped). */
  waitForSync(): Promise<void> {
    if (this.settled) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  hasSynced(): boolean {
    return this.settled;
  }

  /** Calls `listener` after every change of any CRD; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Whether the kind is served: a CRD of its group and kind is Established and serves its version.
   * A CRD being deleted still counts until it is gone, so finalizers on its objects can be removed.
   */
  state(kind: ServedKind): CrdState {
    if (this.forbidden) return { served: true };
    const crd = (this.informer?.list() ?? []).find(
      (c) => c.spec?.group === kind.group && c.spec?.names?.kind === kind.kind,
    );
    if (!crd) return { served: false, why: "no CRD defines it" };
    const crdName = crd.metadata?.name ?? "";
    const mapping: ResourceMapping = {
      apiVersion: kind.apiVersion,
      group: kind.group,
      version: kind.version,
      kind: kind.kind,
      plural: crd.spec?.names?.plural ?? "",
      namespaced: crd.spec?.scope !== "Cluster",
    };
    const established = (crd.status?.conditions ?? []).some(
      (c) => c.type === "Established" && c.status === "True",
    );
    if (!established) return { served: false, mapping, crdName, why: `CRD ${crdName} is not Established` };
    const version = (crd.spec?.versions ?? []).find((v) => v.name === kind.version);
    if (!version?.served)
      return { served: false, mapping, crdName, why: `CRD ${crdName} does not serve ${kind.version}` };
    return { served: true, mapping, crdName };
  }

  async stop(): Promise<void> {
    this.settle();
    await this.informer?.stop();
  }

  private settle(): void {
    this.settled = true;
    for (const w of this.settleWaiters.splice(0)) w();
  }

  private changed(): void {
    if (!this.settled) return;
    for (const l of [...this.listeners]) l();
  }
}
