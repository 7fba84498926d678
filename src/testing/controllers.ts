// Background controllers of the control plane that clients rely on: garbage collection by
// ownerReferences (background, foreground with blockOwnerDeletion, orphan), namespace termination,
// CRD instance cleanup, and the default ServiceAccount of each namespace. They run after every write.
import { crdCleanupFinalizer } from "./crd.js";
import type { Engine } from "./engine.js";
import type { KObj, ResourceDef } from "./types.js";

const manager = "kube-controller-manager";

export class Controllers {
  private scheduled = false;
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
    for (const { def, obj } of everything) {
      const refs: KObj[] = obj.metadata.ownerReferences ?? [];
      if (refs.length === 0) continue;
      const owners = refs.map((r) => byUid.get(r.uid));
      // Owner gone (by uid) for every reference: the dependent is garbage.
      if (owners.every((o) => o === undefined)) {
        this.deleteObject(def, obj);
        continue;
      }
      // An owner being deleted in the foreground takes its dependents with it (foreground too).
      if (
        owners.some(
          (o) =>
            o?.obj.metadata.deletionTimestamp &&
            (o.obj.metadata.finalizers ?? []).includes("foregroundDeletion"),
        )
      ) {
        const live = owners.filter((o) => o && !o.obj.metadata.deletionTimestamp);
        if (live.length === 0) this.deleteObject(def, obj, "Foreground");
      }
      // An owner being deleted with orphan propagation releases its dependents.
      const orphaning = owners.filter(
        (o) => o?.obj.metadata.deletionTimestamp && (o.obj.metadata.finalizers ?? []).includes("orphan"),
      );
      if (orphaning.length > 0) {
        const drop = new Set(orphaning.map((o) => o!.obj.metadata.uid));
        const current = this.engine.store.get(
          def.storageKey,
          obj.metadata.namespace ?? "",
          obj.metadata.name,
        );
        if (current) {
          const next = this.engine.present(def, current);
          next.metadata.ownerReferences = refs.filter((r) => !drop.has(r.uid));
          if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
          this.write(def, next);
        }
      }
    }
    // Owners waiting on dependents.
    for (const { def, obj } of everything) {
      if (!obj.metadata.deletionTimestamp) continue;
      const finalizers: string[] = obj.metadata.finalizers ?? [];
      const deps = (dependentsOf.get(obj.metadata.uid) ?? []).filter((d) =>
        this.engine.store.get(d.def.storageKey, d.obj.metadata.namespace ?? "", d.obj.metadata.name),
      );
      if (finalizers.includes("foregroundDeletion")) {
        const blocking = deps.filter((d) => d.ref.blockOwnerDeletion === true);
        for (const d of deps.filter((x) => x.ref.blockOwnerDeletion !== true))
          this.deleteObject(d.def, d.obj);
        if (blocking.length === 0) this.removeFinalizer(def, obj, "foregroundDeletion");
      }
      if (finalizers.includes("orphan") && deps.length === 0) this.removeFinalizer(def, obj, "orphan");
    }
  }
}
