// CustomResourceDefinition support: validation of the CRD itself (422), defaulting of names,
// registration of every served version as a ResourceDef, Established/NamesAccepted conditions,
// and admission of custom resources against their version's schema.
import type { Admission } from "./admission.js";
import { type Engine, nowTimestamp } from "./engine.js";
import { validateName } from "./names.js";
import { compareKubeVersions } from "./resources.js";
import { applyDefaults, prune, structuralErrors, validateValue } from "./schema.js";
import { ApiError, type FieldError, genericField, invalidValue, notSupported, required } from "./status.js";
import type { KObj, ResourceDef } from "./types.js";

export const crdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

function isCrdDef(def: ResourceDef): boolean {
  return def.group === "apiextensions.k8s.io" && def.resource === "customresourcedefinitions";
}

export function validateCrd(crd: KObj): FieldError[] {
  const errors: FieldError[] = [];
  const spec: KObj = crd.spec ?? {};
  const names: KObj = spec.names ?? {};
  const group = spec.group;
  if (!group) errors.push(required("spec.group"));
  else if (!String(group).includes("."))
    errors.push(invalidValue("spec.group", group, "should be a domain with at least one dot"));
  if (!names.plural) errors.push(required("spec.names.plural"));
  else errors.push(...validateName(String(names.plural), "label", "spec.names.plural"));
  if (!names.kind) errors.push(required("spec.names.kind"));
  if (names.plural && group && crd.metadata?.name !== `${names.plural}.${group}`) {
    errors.push(
      invalidValue("metadata.name", crd.metadata?.name ?? "", 'must be spec.names.plural+"."+spec.group'),
    );
  }
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    errors.push(
      spec.scope === undefined
        ? required("spec.scope")
        : notSupported("spec.scope", spec.scope, ["Cluster", "Namespaced"]),
    );
  }
  const versions: KObj[] = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) errors.push(required("spec.versions", "must have at least one version"));
  const storage = versions.filter((v) => v.storage === true).length;
  if (versions.length > 0 && storage !== 1) {
    errors.push(
      invalidValue(
        "spec.versions",
        versions.map((v) => v.name),
        "must have exactly one version marked as storage version",
      ),
    );
  }
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (!v.name) errors.push(required(`${at}.name`));
    else {
      errors.push(...validateName(String(v.name), "dns1035", `${at}.name`));
      if (seen.has(v.name))
        errors.push(genericField(`${at}.name`, "FieldValueDuplicate", JSON.stringify(v.name)));
      seen.add(v.name);
    }
    if (typeof v.served !== "boolean") errors.push(required(`${at}.served`));
    if (typeof v.storage !== "boolean") errors.push(required(`${at}.storage`));
    errors.push(...structuralErrors(v.schema?.openAPIV3Schema, `${at}.schema.openAPIV3Schema`));
    const scale = v.subresources?.scale;
    if (scale) {
      if (!String(scale.specReplicasPath ?? "").startsWith(".spec.")) {
        errors.push(
          invalidValue(
            `${at}.subresources.scale.specReplicasPath`,
            scale.specReplicasPath ?? "",
            "should be a json path under .spec",
          ),
        );
      }
      if (!String(scale.statusReplicasPath ?? "").startsWith(".status.")) {
        errors.push(
          invalidValue(
            `${at}.subresources.scale.statusReplicasPath`,
            scale.statusReplicasPath ?? "",
            "should be a json path under .status",
          ),
        );
      }
    }
  });
  const strategy = spec.conversion?.strategy;
  if (strategy !== undefined && strategy !== "None" && strategy !== "Webhook") {
    errors.push(notSupported("spec.conversion.strategy", strategy, ["None", "Webhook"]));
  }
  return errors;
}

function defaultCrd(crd: KObj): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== "object") return;
  const names = spec.names;
  if (names && typeof names === "object" && names.kind) {
    names.singular ??= String(names.kind).toLowerCase();
    names.listKind ??= `${names.kind}List`;
  }
  spec.conversion ??= { strategy: "None" };
  for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
    if (v && typeof v === "object" && v.served === undefined) v.served = true;
  }
}

/** The defs a CRD serves (one per served version). */
export function defsForCrd(crd: KObj): ResourceDef[] {
  const spec = crd.spec;
  const names = spec.names;
  return (spec.versions as KObj[])
    .filter((v) => v.served)
    .map((v) => {
      const def: ResourceDef = {
        group: spec.group,
        version: v.name,
        resource: names.plural,
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        singular: names.singular ?? String(names.kind).toLowerCase(),
        namespaced: spec.scope === "Namespaced",
        shortNames: names.shortNames ?? [],
        categories: names.categories ?? [],
        verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
        status: v.subresources?.status !== undefined,
        builtin: false,
        generation: true,
        schema: v.schema?.openAPIV3Schema,
        crdName: crd.metadata.name,
        storageVersion: v.storage === true,
        storageKey: `${spec.group}/${names.plural}`,
        selectableFields: (v.selectableFields ?? []).map((f: KObj) => String(f.jsonPath).replace(/^\./, "")),
        printerColumns: v.additionalPrinterColumns,
      };
      if (v.subresources?.scale) def.scale = v.subresources.scale;
      return def;
    })
    .sort((a, b) => compareKubeVersions(a.version, b.version));
}

function condition(type: string, status: string, reason: string, message: string, previous: KObj[]): KObj {
  const old = previous.find((c) => c.type === type);
  const lastTransitionTime = old && old.status === status ? old.lastTransitionTime : nowTimestamp();
  return { type, status, lastTransitionTime, reason, message };
}

/** Wires CRDs into an engine: admission for CRDs and custom resources, and (un)registration. */
export function installCrdSupport(
  engine: Engine,
  establishDelayMs: number,
  timers: Set<NodeJS.Timeout>,
): void {
  const crdAdmission: Admission = {
    appliesTo: isCrdDef,
    mutate: (_def, obj, old) => {
      defaultCrd(obj);
      if (!old)
        obj.metadata.finalizers = [...new Set([...(obj.metadata.finalizers ?? []), crdCleanupFinalizer])];
    },
    validate: (_def, obj, old) => {
      const errors = validateCrd(obj);
      if (old && old.spec?.group !== obj.spec?.group)
        errors.push(invalidValue("spec.group", obj.spec?.group, "field is immutable"));
      if (old && old.spec?.scope !== obj.spec?.scope)
        errors.push(invalidValue("spec.scope", obj.spec?.scope, "field is immutable"));
      return errors;
    },
  };
  const crAdmission: Admission = {
    appliesTo: (def) => !def.builtin && def.crdName !== undefined,
    mutate: (def, obj, old) => {
      const crd = engine.store.get("apiextensions.k8s.io/customresourcedefinitions", "", def.crdName!);
      if (!old && crd?.metadata.deletionTimestamp) {
        throw new ApiError(
          405,
          `create not allowed while custom resource definition is terminating`,
          "MethodNotAllowed",
        );
      }
      if (def.schema) {
        applyDefaults(obj, def.schema);
        prune(obj, def.schema, true);
      }
    },
    validate: (def, obj) => validateValue(obj, def.schema, "", true),
  };
  engine.admissions.push(crdAdmission, crAdmission);

  const establish = (crdName: string) => {
    const crdDef = engine.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    const crd = engine.store.get(crdDef.storageKey, "", crdName);
    if (!crd) return;
    engine.registry.removeCrd(crdName);
    if (crd.metadata.deletionTimestamp && !(crd.metadata.finalizers ?? []).includes(crdCleanupFinalizer))
      return;
    for (const d of defsForCrd(crd)) engine.registry.add(d);
    const previous: KObj[] = crd.status?.conditions ?? [];
    const conditions = [
      condition("NamesAccepted", "True", "NoConflicts", "no conflicts found", previous),
      condition(
        "Established",
        "True",
        "InitialNamesAccepted",
        "the initial names have been accepted",
        previous,
      ),
    ];
    if (crd.metadata.deletionTimestamp) {
      conditions.push(
        condition(
          "Terminating",
          "True",
          "InstanceDeletionInProgress",
          "CustomResource deletion is in progress",
          previous,
        ),
      );
    }
    const storageVersion = (crd.spec.versions as KObj[]).find((v) => v.storage)?.name;
    const stored = new Set<string>(crd.status?.storedVersions ?? []);
    if (storageVersion) stored.add(storageVersion);
    const names = crd.spec.names;
    const next = structuredClone(crd);
    next.status = {
      conditions,
      acceptedNames: {
        plural: names.plural,
        singular: names.singular,
        kind: names.kind,
        listKind: names.listKind,
        ...(names.shortNames ? { shortNames: names.shortNames } : {}),
        ...(names.categories ? { categories: names.categories } : {}),
      },
      storedVersions: [...stored],
    };
    engine.internalWrite(crdDef, next, "kube-apiserver");
  };

  engine.hooks.push((def, obj, removed) => {
    if (!isCrdDef(def)) return;
    const name = obj.metadata.name as string;
    if (removed) {
      const key = `${obj.spec.group}/${obj.spec.names.plural}`;
      engine.registry.removeCrd(name);
      engine.store.dropBucket(key);
      return;
    }
    const servingNow = engine.registry.all().some((d) => d.crdName === name);
    if (establishDelayMs > 0 && !servingNow) {
      const t = setTimeout(() => {
        timers.delete(t);
        establish(name);
      }, establishDelayMs);
      timers.add(t);
    } else establish(name);
  });
}
