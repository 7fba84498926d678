// Stage 4's CSV (see generate/compose.ts): the bundle ClusterServiceVersion built field by field from the
// base and the collected manifests (operator-sdk §2.5), one apply-step per part: name, version and
// upgrade edges, install strategy (deployments, RBAC split), owned CRDs, alm-examples, webhooks,
// relatedImages, WATCH_NAMESPACE. Pure: the base is cloned, nothing is read or written.
import { InvalidInputError } from "../common/errors.js";
import {
  asRecords,
  clone,
  isRecord,
  type LoadedObject,
  type ManifestObject,
  metadataOf,
  nameOf,
  str,
} from "../manifests/index.js";
import { relatedImagesOf } from "../oci/related-images.js";
import { ownedEntry } from "./base.js";
import { legacyFeatures } from "./features.js";
import type { Collected } from "./collect.js";
import { type RbacSplit, splitRbac } from "./rbac.js";
import { webhookDefinitions } from "./webhooks.js";

export interface CsvOptions {
  packageName: string;
  version: string | undefined;
  replaces: string | undefined;
  skipRange: string | undefined;
  skips: string[] | undefined;
  extraServiceAccounts: string[];
  /** Extra annotations (OpenShift features, categories, containerImage, suggested namespace, builder...). */
  annotations: Record<string, string>;
}

export interface ComposedCsv {
  csv: ManifestObject;
  rbac: RbacSplit;
  notes: string[];
}

type Fields = Record<string, unknown>;

/** A deployment as the CSV's install strategy lists it. */
interface InstallDeployment {
  name: string;
  label?: unknown;
  spec: Fields;
}

/** The plan: each step sets its part of the CSV; notes collect what the user should know. */
export function composeCsv(base: ManifestObject, c: Collected, options: CsvOptions): ComposedCsv {
  const { csv, meta, spec } = startFrom(base);
  const notes: string[] = [];
  const annotations = applyIdentity(meta, spec, options);
  const { deployments, rbac } = applyInstallStrategy(spec, c, options.extraServiceAccounts, notes);
  applyOwnedCrds(spec, c.crds, notes);
  applyExamples(annotations, c.customResources);
  applyWebhooks(spec, c, notes);
  applyRelatedImages(csv, spec, notes);
  applyWatchNamespace(deployments);
  requireInstallModes(spec);
  return { csv, rbac, notes };
}

/** A copy of the base without status and timestamps, with its metadata and spec maps. */
function startFrom(base: ManifestObject) {
  const csv = clone(base);
  const meta = metadataOf(csv);
  if (!isRecord(csv.spec)) csv.spec = {};
  const spec = csv.spec as Fields;
  delete csv.status;
  delete meta.creationTimestamp;
  return { csv, meta, spec };
}

/** Name and version, upgrade edges, and the annotations the caller computed; returns the annotations. */
function applyIdentity(meta: Fields, spec: Fields, options: CsvOptions): Fields {
  if (options.version !== undefined) {
    meta.name = `${options.packageName}.v${options.version}`;
    spec.version = options.version;
  }
  if (options.replaces !== undefined) spec.replaces = options.replaces;
  if (options.skips !== undefined) spec.skips = options.skips;
  const annotations: Fields = isRecord(meta.annotations) ? meta.annotations : {};
  meta.annotations = annotations;
  if (options.skipRange !== undefined) annotations["olm.skipRange"] = options.skipRange;
  Object.assign(annotations, options.annotations);
  Object.assign(annotations, legacyFeatures(annotations));
  return annotations;
}

/** Install strategy: every Deployment, and the RBAC bound to their service accounts. */
function applyInstallStrategy(spec: Fields, c: Collected, extraServiceAccounts: string[], notes: string[]) {
  const install = isRecord(spec.install) ? spec.install : {};
  spec.install = install;
  if (!str(install.strategy)) install.strategy = "deployment";
  const rbac = splitRbac(c, extraServiceAccounts);
  const deployments = c.deployments.map(installDeployment);
  if (str(install.strategy) === "deployment") {
    install.spec = {
      ...(rbac.clusterPermissions.length > 0 ? { clusterPermissions: rbac.clusterPermissions } : {}),
      deployments,
      ...(rbac.permissions.length > 0 ? { permissions: rbac.permissions } : {}),
    };
  } else notes.push(`install strategy "${str(install.strategy)}" in the base is kept as is`);
  return { deployments, rbac };
}

function installDeployment(d: LoadedObject): InstallDeployment {
  const dspec = clone((d.object.spec ?? {}) as Fields);
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
}

/** Owned CRDs: one entry per served version, keeping base entries (descriptions, descriptors). */
function applyOwnedCrds(spec: Fields, crds: readonly LoadedObject[], notes: string[]): void {
  const crdsSpec = isRecord(spec.customresourcedefinitions) ? spec.customresourcedefinitions : {};
  const baseOwned = asRecords(crdsSpec.owned);
  const owned: Fields[] = [];
  for (const crd of crds) {
    for (const version of asRecords((crd.object.spec as Fields | undefined)?.versions)) {
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
  const nextCrds: Fields = { ...crdsSpec };
  if (owned.length > 0) nextCrds.owned = owned;
  else delete nextCrds.owned;
  if (Object.keys(nextCrds).length > 0) spec.customresourcedefinitions = nextCrds;
  else delete spec.customresourcedefinitions;
  if (spec.apiservicedefinitions === undefined) spec.apiservicedefinitions = {};
}

/** alm-examples: every custom resource from config/samples (and any other CR), in input order. */
function applyExamples(annotations: Fields, customResources: readonly LoadedObject[]): void {
  const examples = customResources.map((l) => sortKeys(stripVolatile(l.object)));
  annotations["alm-examples"] = JSON.stringify(examples, null, 2);
}

function applyWebhooks(spec: Fields, c: Collected, notes: string[]): void {
  const webhooks = webhookDefinitions(c, notes);
  if (webhooks.length > 0) spec.webhookdefinitions = webhooks;
  else delete spec.webhookdefinitions;
}

/**
 * relatedImages: every image of the CSV (the base's entries, RELATED_IMAGE_* values, containers),
 * built the one way --use-image-digests rebuilds it after pinning.
 */
function applyRelatedImages(csv: ManifestObject, spec: Fields, notes: string[]): void {
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
}

/** WATCH_NAMESPACE follows the OperatorGroup's target namespaces. */
function applyWatchNamespace(deployments: readonly InstallDeployment[]): void {
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
}

function requireInstallModes(spec: Fields): void {
  if (!Array.isArray(spec.installModes) || spec.installModes.length === 0) {
    throw new InvalidInputError("the base CSV has no spec.installModes", {
      hint: "add installModes to the base CSV, or recreate it with --install-modes",
    });
  }
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

function stripVolatile(object: Fields): Fields {
  const out = clone(object);
  const meta = isRecord(out.metadata) ? out.metadata : undefined;
  if (meta && meta.creationTimestamp === null) delete meta.creationTimestamp;
  return out;
}
