// Background controllers of the control plane that clients rely on: garbage collection by
// ownerReferences (background, foreground with blockOwnerDeletion, orphan; owners resolved as the
// real collector does, owners.ts), namespace termination,
// CRD instance cleanup, and the default ServiceAccount of each namespace. They run after every write.
import { crdCleanupFinalizer } from "./crd.js";
import { type Engine, nowTimestamp } from "./engine.js";
import { type OwnerState, ownerRefInvalidNamespaceEvent, resolveOwner } from "./owners.js";
import type { KObj, ResourceDef } from "./types.js";

const manager = "kube-controller-manager";

export class Controllers {
  private scheduled = false;
  /** Dependent/owner uid pairs already reported with OwnerRefInvalidNamespace. */
  private readonly reported = new Set<string>();
  private stopped = false;

  constructor(private readonly engine: Engine) {}

  /** Schedules one pass (coalesced) after the current request. */
  kick(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.stopped) this.runPass();
    });
  }

  stop(): void {
    this.stopped = true;
  }

  private all(): Array<{ def: ResourceDef; obj: KObj }> {
    const out: Array<{ def: ResourceDef; obj: KObj }> = [];
    for (const key of this.engine.store.bucketKeys()) {
      const def = this.engine.canonicalDef(key);
      if (!def) continue;
      for (const obj of this.engine.store.list(key)) out.push({ def, obj });
    }
    return out;
  }

  private runPass(): void {
    this.namespaces();
    this.crdCleanup();
    this.garbageCollect();
  }

  private write(def: ResourceDef, next: KObj): void {
    this.engine.internalWrite(def, next, manager);
  }

  private removeFinalizer(def: ResourceDef, obj: KObj, finalizer: string): void {
    const current = this.engine.store.get(def.storageKey, obj.metadata.namespace ?? "", obj.metadata.name);
    if (!current) return;
    const next = this.engine.present(def, current);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f: string) => f !== finalizer);
    this.write(def, next);
  }

  private deleteObject(def: ResourceDef, obj: KObj, policy = "Background"): void {
    const current = this.engine.store.get(def.storageKey, obj.metadata.namespace ?? "", obj.metadata.name);
    if (!current) return;
    if (current.metadata.deletionTimestamp && policy === "Background") return;
    this.engine.deleteStored(def, current, policy);
  }

  private namespaces(): void {
    const nsDef = this.engine.registry.find("", "v1", "namespaces")!;
    const saDef = this.engine.registry.find("", "v1", "serviceaccounts")!;
    for (const ns of this.engine.store.list(nsDef.storageKey)) {
      const name = ns.metadata.name as string;
      if (!ns.metadata.deletionTimestamp) {
        if (!this.engine.store.get(saDef.storageKey, name, "default")) {
          this.write(saDef, {
            apiVersion: "v1",
            kind: "ServiceAccount",
            metadata: { name: "default", namespace: name },
          });
        }
        continue;
      }
      const contents = this.all().filter(({ def, obj }) => def.namespaced && obj.metadata.namespace === name);
      for (const { def, obj } of contents) this.deleteObject(def, obj);
      const remaining = this.all().filter(
        ({ def, obj }) => def.namespaced && obj.metadata.namespace === name,
      );
      const current = this.engine.store.get(nsDef.storageKey, "", name);
      if (!current) continue;
      const next = this.engine.present(nsDef, current);
      const conditions: KObj[] = [];
      if (remaining.length > 0) {
        const counts = new Map<string, number>();
        const finalizerCounts = new Map<string, number>();
        for (const { def, obj } of remaining) {
          const label = def.group === "" ? def.resource : `${def.resource}.${def.group}`;
          counts.set(label, (counts.get(label) ?? 0) + 1);
          for (const f of obj.metadata.finalizers ?? [])
            finalizerCounts.set(f, (finalizerCounts.get(f) ?? 0) + 1);
        }
        const countText = [...counts].map(([r, n]) => `${r} has ${n} resource instances`).join(", ");
        conditions.push({
          type: "NamespaceContentRemaining",
          status: "True",
          reason: "SomeResourcesRemain",
          message: `Some resources are remaining: ${countText}`,
        });
        if (finalizerCounts.size > 0) {
          const fText = [...finalizerCounts].map(([f, n]) => `${f} in ${n} resource instances`).join(", ");
          conditions.push({
            type: "NamespaceFinalizersRemaining",
            status: "True",
            reason: "SomeFinalizersRemain",
            message: `Some content in the namespace has finalizers remaining: ${fText}`,
          });
        }
        const prevConds: KObj[] = current.status?.conditions ?? [];
        for (const c of conditions)
          c.lastTransitionTime =
            prevConds.find((p) => p.type === c.type)?.lastTransitionTime ??
            new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
        next.status = { ...(next.status ?? {}), phase: "Terminating", conditions };
        this.write(nsDef, next);
        continue;
      }
      // Empty: drop the "kubernetes" spec finalizer; the namespace goes once metadata.finalizers are gone too.
      next.spec = { ...(next.spec ?? {}), finalizers: [] };
      next.status = { ...(next.status ?? {}), phase: "Terminating" };
      this.write(nsDef, next);
      const after = this.engine.store.get(nsDef.storageKey, "", name);
      if (after && (after.metadata.finalizers ?? []).length === 0) {
        const last = this.engine.store.remove(nsDef.storageKey, after);
        for (const h of this.engine.hooks) h(nsDef, last, true);
      }
    }
  }

  private crdCleanup(): void {
    const crdDef = this.engine.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    for (const crd of this.engine.store.list(crdDef.storageKey)) {
      if (!crd.metadata.deletionTimestamp || !(crd.metadata.finalizers ?? []).includes(crdCleanupFinalizer))
        continue;
      const key = `${crd.spec.group}/${crd.spec.names.plural}`;
      const def = this.engine.canonicalDef(key);
      const instances = this.engine.store.list(key);
      if (def) for (const obj of instances) this.deleteObject(def, obj);
      if (this.engine.store.list(key).length === 0) this.removeFinalizer(crdDef, crd, crdCleanupFinalizer);
    }
  }

  /**
   * One pass of the garbage collector: dependents whose owners are all gone are deleted (background,
   * or foreground after a foreground owner), orphaning owners release their dependents, and owners
   * waiting on dependents finish. A cluster-scoped dependent of a namespaced owner is never
   * collected and, like a dependent whose owner sits in another namespace, is reported once with
   * an OwnerRefInvalidNamespace event (see owners.ts).
   */
  private garbageCollect(): void {
    const everything = this.all();
    const byUid = new Map<string, { def: ResourceDef; obj: KObj }>();
    for (const e of everything) byUid.set(e.obj.metadata.uid, e);
    const dependentsOf = new Map<string, Array<{ def: ResourceDef; obj: KObj; ref: KObj }>>();
    for (const e of everything) {
      for (const ref of (e.obj.metadata.ownerReferences as KObj[] | undefined) ?? []) {
        const list = dependentsOf.get(ref.uid) ?? [];
        list.push({ ...e, ref });
        dependentsOf.set(ref.uid, list);
      }
    }
    const invalid = new Set<string>();
    for (const dependent of everything) {
      const refs: KObj[] = dependent.obj.metadata.ownerReferences ?? [];
      if (refs.length === 0) continue;
      this.reportInvalidNamespaces(dependent, refs, byUid);
      const states = refs.map((r) => resolveOwner(this.engine, dependent, r));
      if (states.some((s) => s.state === "invalid" || s.state === "unknown")) {
        invalid.add(dependent.obj.metadata.uid);
        continue;
      }
      this.collectDependent(dependent, refs, states);
    }
    this.finishWaitingOwners(everything, dependentsOf, invalid);
  }

  /** Records OwnerRefInvalidNamespace once per dependent and owner, as the real collector does. */
  private reportInvalidNamespaces(
    dependent: { def: ResourceDef; obj: KObj },
    refs: KObj[],
    byUid: Map<string, { def: ResourceDef; obj: KObj }>,
  ): void {
    const namespace = dependent.obj.metadata.namespace ?? "";
    for (const ref of refs) {
      const owner = byUid.get(ref.uid);
      if (!owner?.def.namespaced || owner.obj.metadata.namespace === namespace) continue;
      const key = `${dependent.obj.metadata.uid}/${ref.uid}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      const events = this.engine.registry.find("", "v1", "events")!;
      this.write(events, ownerRefInvalidNamespaceEvent(dependent, ref, nowTimestamp()));
    }
  }

  private collectDependent(
    { def, obj }: { def: ResourceDef; obj: KObj },
    refs: KObj[],
    states: OwnerState[],
  ): void {
    const owners = states.map((s) => (s.state === "present" ? s.owner : undefined));
    // Every owner gone (none under the referenced uid where it should be): the dependent is garbage.
    if (owners.every((o) => o === undefined)) {
      this.deleteObject(def, obj);
      return;
    }
    // An owner being deleted in the foreground takes its dependents with it (foreground too).
    const deleting = (o: KObj | undefined, finalizer: string) =>
      Boolean(o?.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).includes(finalizer));
    if (owners.some((o) => deleting(o, "foregroundDeletion"))) {
      const live = owners.filter((o) => o && !o.metadata.deletionTimestamp);
      if (live.length === 0) this.deleteObject(def, obj, "Foreground");
    }
    // An owner being deleted with orphan propagation releases its dependents.
    const orphaning = owners.filter((o) => deleting(o, "orphan"));
    if (orphaning.length === 0) return;
    const drop = new Set(orphaning.map((o) => o!.metadata.uid));
    const current = this.engine.store.get(def.storageKey, obj.metadata.namespace ?? "", obj.metadata.name);
    if (!current) return;
    const next = this.engine.present(def, current);
    next.metadata.ownerReferences = refs.filter((r) => !drop.has(r.uid));
    if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
    this.write(def, next);
  }

  /** Owners waiting on dependents (foregroundDeletion, orphan) finish once those are handled. */
  private finishWaitingOwners(
    everything: Array<{ def: ResourceDef; obj: KObj }>,
    dependentsOf: Map<string, Array<{ def: ResourceDef; obj: KObj; ref: KObj }>>,
    invalid: Set<string>,
  ): void {
    for (const { def, obj } of everything) {
      if (!obj.metadata.deletionTimestamp) continue;
      const finalizers: string[] = obj.metadata.finalizers ?? [];
      const deps = (dependentsOf.get(obj.metadata.uid) ?? []).filter((d) =>
        this.engine.store.get(d.def.storageKey, d.obj.metadata.namespace ?? "", d.obj.metadata.name),
      );
      if (finalizers.includes("foregroundDeletion")) {
        // A dependent the collector can never delete (invalid reference) blocks its owner forever.
        const blocking = deps.filter((d) => d.ref.blockOwnerDeletion === true);
        for (const d of deps.filter((x) => x.ref.blockOwnerDeletion !== true)) {
          if (!invalid.has(d.obj.metadata.uid)) this.deleteObject(d.def, d.obj);
        }
        if (blocking.length === 0) this.removeFinalizer(def, obj, "foregroundDeletion");
      }
      if (finalizers.includes("orphan") && deps.length === 0) this.removeFinalizer(def, obj, "orphan");
    }
  }
}
