// Builds the bundle CSV field by field from the base and the collected manifests (operator-sdk
// §2.5): name/version/upgrade edges, install strategy (deployments, RBAC split), owned CRDs,
// alm-examples, webhooks, relatedImages, WATCH_NAMESPACE, annotations.
import { InvalidInputError } from "../common/errors.js";
import {
  asRecords,
  clone,
  isRecord,
  type ManifestObject,
  type LoadedObject,
  metadataOf,
  nameOf,
  podSpecOf,
  str,
} from "../manifests/index.js";
import { relatedImagesOf } from "../images/related-images.js";
import { ownedEntry } from "./base.js";
import { legacyFeatures } from "./features.js";
import type { Collected } from "./collect.js";
import { type RbacSplit, splitRbac } from "./rbac.js";
import { webhookDefinitions } from "./webhooks.js";

export interface ComposeOptions {
  packageName: string;
  version: string | undefined;
  replaces: string | undefined;
  skipRange: string | undefined;
  skips: string[] | undefined;
  extraServiceAccounts: string[];
  /** Extra annotations (OpenShift features, categories, containerImage, suggested namespace, builder...). */
  annotations: Record<string, string>;
}

export interface Composed {
  csv: ManifestObject;
  rbac: RbacSplit;
  notes: string[];
}

/** The manager container of a deployment set: the one named "manager", else the only container. */
export function managerContainer(deployments: readonly LoadedObject[]): Record<string, unknown> | undefined {
  const containers = deployments.flatMap((d) => asRecords(podSpecOf(d.object)?.containers));
  return (
    containers.find((c) => c.name === "manager") ?? (containers.length === 1 ? containers[0] : undefined)
  );
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

function stripVolatile(object: Record<string, unknown>): Record<string, unknown> {
  const out = clone(object);
  const meta = isRecord(out.metadata) ? out.metadata : undefined;
  if (meta && meta.creationTimestamp === null) delete meta.creationTimestamp;
  return out;
}

export function compose(base: ManifestObject, c: Collected, options: ComposeOptions): Composed {
  const csv = clone(base);
  const notes: string[] = [];
  const meta = metadataOf(csv);
  if (!isRecord(csv.spec)) csv.spec = {};
  const spec = csv.spec as Record<string, unknown>;
  delete csv.status;
  delete meta.creationTimestamp;

  if (options.version !== undefined) {
    meta.name = `${options.packageName}.v${options.version}`;
    spec.version = options.version;
  }
  if (options.replaces !== undefined) spec.replaces = options.replaces;
  if (options.skips !== undefined) spec.skips = options.skips;
  const annotations: Record<string, unknown> = isRecord(meta.annotations) ? meta.annotations : {};
  meta.annotations = annotations;
  if (options.skipRange !== undefined) annotations["olm.skipRange"] = options.skipRange;
  Object.assign(annotations, options.annotations);
  Object.assign(annotations, legacyFeatures(annotations));

  // Install strategy: every Deployment, and the RBAC bound to their service accounts.
  const install = isRecord(spec.install) ? spec.install : {};
  spec.install = install;
  if (!str(install.strategy)) install.strategy = "deployment";
  const rbac = splitRbac(c, options.extraServiceAccounts);
  const deployments = c.deployments.map((d) => {
    const dspec = clone((d.object.spec ?? {}) as Record<string, unknown>);
    const template = isRecord(dspec.template) ? dspec.template : undefined;
    if (template && isRecord(template.metadata)) delete template.metadata.creationTimestamp;
    // Zero-valued structs operator-sdk's typed encoder always writes; kept for identical CSVs.
    if (dspec.strategy === undefined) dspec.strategy = {};
    const pod = template && isRecord(template.spec) ? template.spec : {};
    for (const container of [...asRecords(pod.containers), ...asRecords(pod.initContainers)]) {
      if (container.resources === undefined) container.resources = {};
    }
    const labels = isRecord(d.object.metadata) ? d.object.metadata.labels : undefined;
    return { name: nameOf(d.object), ...(isRecord(labels) ? { label: labels } : {}), spec: dspec };
  });
  if (str(install.strategy) === "deployment") {
    install.spec = {
      ...(rbac.clusterPermissions.length > 0 ? { clusterPermissions: rbac.clusterPermissions } : {}),
      deployments,
      ...(rbac.permissions.length > 0 ? { permissions: rbac.permissions } : {}),
    };
  } else notes.push(`install strategy "${str(install.strategy)}" in the base is kept as is`);

  // Owned CRDs: one entry per served version, keeping base entries (descriptions, descriptors).
  const crdsSpec = isRecord(spec.customresourcedefinitions) ? spec.customresourcedefinitions : {};
  const baseOwned = asRecords(crdsSpec.owned);
  const owned: Record<string, unknown>[] = [];
  for (const crd of c.crds) {
    for (const version of asRecords((crd.object.spec as Record<string, unknown> | undefined)?.versions)) {
      if (version.served === false) continue;
      const fresh = ownedEntry(crd.object, version);
      const kept = baseOwned.find(
        (e) => e.name === fresh.name && e.version === fresh.version && e.kind === fresh.kind,
      );
      owned.push(kept ?? fresh);
    }
  }
  for (const entry of baseOwned) {
    if (!owned.includes(entry))
      notes.push(
        `owned CRD ${str(entry.name)} ${str(entry.version)} in the base has no CRD in the manifests; dropped`,
      );
  }
  const nextCrds: Record<string, unknown> = { ...crdsSpec };
  if (owned.length > 0) nextCrds.owned = owned;
  else delete nextCrds.owned;
  if (Object.keys(nextCrds).length > 0) spec.customresourcedefinitions = nextCrds;
  else delete spec.customresourcedefinitions;
  if (spec.apiservicedefinitions === undefined) spec.apiservicedefinitions = {};

  // alm-examples: every custom resource from config/samples (and any other CR), in input order.
  const examples = c.customResources.map((l) => sortKeys(stripVolatile(l.object)));
  annotations["alm-examples"] = JSON.stringify(examples, null, 2);

  const webhooks = webhookDefinitions(c, notes);
  if (webhooks.length > 0) spec.webhookdefinitions = webhooks;
  else delete spec.webhookdefinitions;

  // relatedImages: every image of the CSV (the base's entries, RELATED_IMAGE_* values, containers),
  // built the one way --use-image-digests rebuilds it after pinning.
  const related = relatedImagesOf(csv);
  const valueFrom = related.problems.filter((p) => p.kind === "valueFrom");
  if (valueFrom.length > 0) {
    throw new InvalidInputError(`${valueFrom[0]!.where}: ${valueFrom[0]!.problem}`, {
      hint: "set the RELATED_IMAGE_ variable to the image reference itself",
    });
  }
  for (const p of related.problems.filter((x) => x.kind === "noValue"))
    notes.push(`${p.where} is empty; not listed in relatedImages`);
  notes.push(...related.notes);
  if (related.relatedImages.length > 0) spec.relatedImages = related.relatedImages;
  else delete spec.relatedImages;

  // WATCH_NAMESPACE follows the OperatorGroup's target namespaces.
  for (const d of deployments) {
    const pod = isRecord(d.spec.template) && isRecord(d.spec.template.spec) ? d.spec.template.spec : {};
    for (const container of asRecords(pod.containers)) {
      for (const env of asRecords(container.env)) {
        if (env.name !== "WATCH_NAMESPACE") continue;
        delete env.value;
        env.valueFrom = { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } };
      }
    }
  }

  if (!Array.isArray(spec.installModes) || spec.installModes.length === 0) {
    throw new InvalidInputError("the base CSV has no spec.installModes", {
      hint: "add installModes to the base CSV, or recreate it with --install-modes",
    });
  }
  return { csv, rbac, notes };
}
