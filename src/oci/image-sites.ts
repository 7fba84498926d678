// Where images live in bundle manifests. A site is one string field holding an image reference,
// with the object that holds it (so pinning assigns the field and never edits text):
//   - every pod spec anywhere in any object (containers, initContainers, ephemeralContainers):
//     `image` and env vars named RELATED_IMAGE_*;
//   - in the CSV: metadata.annotations.containerImage and spec.relatedImages[].image.
import { isRelatedImageVariable, relatedImageName } from "../common/related-image-names.js";
import { parseReference } from "./reference.js";

export type SiteRole = "container" | "initContainer" | "env" | "annotation" | "relatedImage";

export interface ImageSite {
  holder: Record<string, unknown>;
  key: string;
  value: string;
  role: SiteRole;
  /** Where it is, for messages: "ClusterServiceVersion memcached.v0.0.1, deployment x, container manager". */
  where: string;
  /** The name this site suggests for relatedImages, and a longer one used when names collide. */
  name?: string;
  qualifiedName?: string;
  /** CSV install deployments only (they feed relatedImages). */
  inCsv: boolean;
}

export interface SiteProblem {
  where: string;
  problem: string;
  /** What is wrong, for callers that treat problems differently (bundle lists, pinning refuses). */
  kind: "valueFrom" | "noValue" | "noImage" | "noEntryImage";
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const CONTAINER_LISTS = [
  ["containers", "container"],
  ["initContainers", "initContainer"],
  ["ephemeralContainers", "container"],
] as const;

export function describeObject(object: Obj): string {
  const metadata = isObj(object.metadata) ? object.metadata : {};
  return `${String(object.kind ?? "object")} ${String(metadata.name ?? "(unnamed)")}`;
}

function isPodSpec(node: Obj): boolean {
  return CONTAINER_LISTS.some(([key]) => Array.isArray(node[key]) && (node[key] as unknown[]).every(isObj));
}

/** What the visitors of one object share. */
interface Collector {
  isCsv: boolean;
  objectWhere: string;
  sites: ImageSite[];
  problems: SiteProblem[];
}

/** RELATED_IMAGE_ variables of one container (valueFrom and empty values are problems). */
function envSites(
  c: Collector,
  container: Obj,
  where: string,
  qualify: (envName: string) => string,
  inCsv: boolean,
) {
  if (!Array.isArray(container.env)) return;
  for (const env of container.env) {
    if (!isObj(env) || typeof env.name !== "string" || !isRelatedImageVariable(env.name)) continue;
    const envWhere = `${where}, env ${env.name}`;
    if (env.valueFrom !== undefined) {
      c.problems.push({
        where: envWhere,
        problem: '"valueFrom" cannot be pinned or listed in relatedImages; give the image as "value"',
        kind: "valueFrom",
      });
      continue;
    }
    if (typeof env.value !== "string" || env.value === "") {
      c.problems.push({ where: envWhere, problem: "the variable has no value", kind: "noValue" });
      continue;
    }
    const envName = relatedImageName(env.name);
    c.sites.push({
      holder: env,
      key: "value",
      value: env.value,
      role: "env",
      where: envWhere,
      ...(envName ? { name: envName } : {}),
      qualifiedName: qualify(envName),
      inCsv,
    });
  }
}

/** Every container image and RELATED_IMAGE_ variable of a pod spec. */
function visitPodSpec(c: Collector, spec: Obj, context: string, owner: string | undefined): void {
  const containerCount = CONTAINER_LISTS.reduce(
    (n, [key]) => n + (Array.isArray(spec[key]) ? (spec[key] as unknown[]).length : 0),
    0,
  );
  for (const [key, role] of CONTAINER_LISTS) {
    const list = spec[key];
    if (!Array.isArray(list)) continue;
    for (const container of list) {
      if (!isObj(container)) continue;
      const name = String(container.name ?? "");
      const where = `${context}, ${role === "initContainer" ? "init container" : "container"} ${name || "(unnamed)"}`;
      const inCsv = c.isCsv && owner !== undefined;
      if (typeof container.image === "string" && container.image !== "") {
        const qualified = owner && containerCount > 1 ? `${owner}-${name}` : (owner ?? name);
        c.sites.push({
          holder: container,
          key: "image",
          value: container.image,
          role,
          where,
          ...(name ? { name } : {}),
          qualifiedName: qualified || name,
          inCsv,
        });
      } else if (c.isCsv) {
        c.problems.push({ where, problem: "the container has no image", kind: "noImage" });
      }
      const qualify = (envName: string | undefined) =>
        owner && containerCount > 1 ? `${owner}-${name}-${envName}` : `${owner ?? name}-${envName}`;
      envSites(c, container, where, qualify, inCsv);
    }
  }
}

/** The pod specs of a CSV's install deployments, visited with the deployment as owner. */
function visitCsvDeployments(c: Collector, object: Obj): Set<Obj> {
  const csvPodSpecs = new Set<Obj>();
  if (!c.isCsv || !isObj(object.spec) || !isObj(object.spec.install) || !isObj(object.spec.install.spec))
    return csvPodSpecs;
  const list = object.spec.install.spec.deployments;
  for (const deployment of Array.isArray(list) ? list.filter(isObj) : []) {
    const template =
      isObj(deployment.spec) && isObj(deployment.spec.template) ? deployment.spec.template : undefined;
    const podSpec = template && isObj(template.spec) ? template.spec : undefined;
    if (!podSpec) continue;
    csvPodSpecs.add(podSpec);
    const name = String(deployment.name ?? "(unnamed)");
    visitPodSpec(c, podSpec, `${c.objectWhere}, deployment ${name}`, name);
  }
  return csvPodSpecs;
}

/** Any other pod spec, in any object (Deployments, Jobs, CronJobs, Pods, …): pinned, not listed. */
function visitOtherPodSpecs(c: Collector, node: unknown, path: string, skip: ReadonlySet<Obj>): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      visitOtherPodSpecs(c, item, `${path}[${i}]`, skip);
    });
    return;
  }
  if (!isObj(node)) return;
  if (isPodSpec(node) && !skip.has(node)) {
    visitPodSpec(c, node, `${c.objectWhere}, ${path || "spec"}`, undefined);
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (skip.has(value as Obj)) continue;
    visitOtherPodSpecs(c, value, path ? `${path}.${key}` : key, skip);
  }
}

/** The CSV's containerImage annotation and its relatedImages entries. */
function visitCsvMetadata(c: Collector, object: Obj): void {
  const metadata = isObj(object.metadata) ? object.metadata : undefined;
  const annotations = metadata && isObj(metadata.annotations) ? metadata.annotations : undefined;
  if (annotations && typeof annotations.containerImage === "string" && annotations.containerImage !== "") {
    c.sites.push({
      holder: annotations,
      key: "containerImage",
      value: annotations.containerImage,
      role: "annotation",
      where: `${c.objectWhere}, annotation containerImage`,
      inCsv: true,
    });
  }
  const related =
    isObj(object.spec) && Array.isArray(object.spec.relatedImages) ? object.spec.relatedImages : [];
  related.forEach((entry, i) => {
    if (!isObj(entry) || typeof entry.image !== "string" || entry.image === "") {
      c.problems.push({
        where: `${c.objectWhere}, spec.relatedImages[${i}]`,
        problem: "the entry has no image",
        kind: "noEntryImage",
      });
      return;
    }
    const name = typeof entry.name === "string" ? entry.name : "";
    c.sites.push({
      holder: entry,
      key: "image",
      value: entry.image,
      role: "relatedImage",
      where: `${c.objectWhere}, relatedImages ${name || `[${i}]`}`,
      ...(name ? { name, qualifiedName: name } : {}),
      inCsv: true,
    });
  });
}

/** Collects image sites (and problems such as valueFrom) from one object. */
export function findImageSites(object: Obj, sites: ImageSite[], problems: SiteProblem[]): void {
  const c: Collector = {
    isCsv: object.kind === "ClusterServiceVersion",
    objectWhere: describeObject(object),
    sites,
    problems,
  };
  const csvPodSpecs = visitCsvDeployments(c, object);
  visitOtherPodSpecs(c, object, "", csvPodSpecs);
  if (c.isCsv) visitCsvMetadata(c, object);
}

/**
 * Env values of a CSV's deployments that are images referenced by tag outside a RELATED_IMAGE_
 * variable: pinning never touches them (e.g. `DFA_BUSYBOX_IMAGE: quay.io/fedora/fedora:39`), so a
 * disconnected install would still pull by tag. Only values with an explicit tag count ("host:8080"
 * is an address, not an image); `$(VAR)` references are not images.
 */
export function tagReferencedEnvImages(
  object: Obj,
): Array<{ where: string; image: string; variable: string }> {
  if (object.kind !== "ClusterServiceVersion") return [];
  const spec = isObj(object.spec) && isObj(object.spec.install) ? object.spec.install.spec : undefined;
  const deployments = isObj(spec) && Array.isArray(spec.deployments) ? spec.deployments.filter(isObj) : [];
  const found: Array<{ where: string; image: string; variable: string }> = [];
  for (const deployment of deployments) {
    const template =
      isObj(deployment.spec) && isObj(deployment.spec.template) ? deployment.spec.template : {};
    const pod = isObj(template.spec) ? template.spec : {};
    for (const [key] of CONTAINER_LISTS) {
      for (const container of Array.isArray(pod[key]) ? pod[key].filter(isObj) : []) {
        for (const env of Array.isArray(container.env) ? container.env.filter(isObj) : []) {
          const name = typeof env.name === "string" ? env.name : "";
          const value = typeof env.value === "string" ? env.value.trim() : "";
          if (!name || isRelatedImageVariable(name) || value.includes("$(")) continue;
          if (!isTagReference(value)) continue;
          found.push({
            where: `deployment ${String(deployment.name ?? "(unnamed)")}, container ${String(container.name ?? "(unnamed)")}, env ${name}`,
            image: value,
            variable: name,
          });
        }
      }
    }
  }
  return found;
}

/** An image by explicit tag; "host:8080" (no '/', numeric tag) reads as an address, not an image. */
function isTagReference(value: string): boolean {
  try {
    const ref = parseReference(value);
    if (ref.tag === undefined || ref.digest !== undefined) return false;
    return value.includes("/") || !/^\d+$/.test(ref.tag);
  } catch {
    return false;
  }
}
