// Renders a kustomization directory the way `kustomize build` does for the subset operator
// projects use, without the kustomize binary: resources (files and directories), patches
// (strategic merge and JSON 6902, with targets), configMapGenerator/secretGenerator with
// kustomize's hashed names (generators.ts, hash.ts), namespace, namePrefix/nameSuffix with name
// references fixed up, labels, images, replicas and replacements, within kustomize's load
// restrictor (load-restrictor.ts). Any other kustomization field fails loudly, naming it.
import { readFile, stat } from "../common/fs.js";
import { join, relative } from "node:path";
import { InvalidInputError, UsageError } from "../common/errors.js";
import { getField, parseFieldPath, setField } from "./fieldpath.js";
import { applyJsonPatch } from "./jsonpatch.js";
import {
  asArray,
  asRecords,
  CLUSTER_SCOPED_KINDS,
  clone,
  groupOf,
  isRecord,
  kindOf,
  metadataOf,
  nameOf,
  namespaceOf,
  type Resource,
  str,
  versionOf,
} from "./object.js";
import {
  type Configurations,
  type FieldSpec,
  fieldSites,
  type NameReference,
  readConfigurations,
  specMatches,
} from "./configurations.js";
import { runGenerators } from "./generators.js";
import { contentHash } from "./hash.js";
import { KustomizationFiles, type LoadRestrictor } from "./load-restrictor.js";
import { mergeMap } from "./smp.js";
import { loadedObjects, readDocuments } from "./documents.js";
import { parseYaml, parseYamlDocuments } from "../common/yaml/read.js";

const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
/** Every kustomization field the reader applies; any other field is refused by name. */
const SUPPORTED_FIELDS = new Set([
  "apiVersion",
  "kind",
  "metadata",
  "resources",
  "bases",
  "crds",
  "configMapGenerator",
  "secretGenerator",
  "generatorOptions",
  "patches",
  "patchesStrategicMerge",
  "patchesJson6902",
  "namespace",
  "namePrefix",
  "nameSuffix",
  "commonLabels",
  "labels",
  "commonAnnotations",
  "images",
  "replicas",
  "replacements",
  "configurations",
  "sortOptions",
]);

async function findKustomization(dir: string): Promise<string | undefined> {
  for (const name of KUSTOMIZATION_FILES) {
    const path = join(dir, name);
    try {
      if ((await stat(path)).isFile()) return path;
    } catch {
      /* try the next name */
    }
  }
  return undefined;
}

export interface BuildContext {
  /** Paths in messages are shown relative to this directory. */
  root: string;
  /** Absolute paths of file resources that may be missing (the base CSV before its first run). */
  optional?: ReadonlySet<string>;
  /** Collects notes about what the reader left out. */
  notes?: string[];
  /** kustomize's load restrictor (default rootOnly, as `kustomize build`). */
  loadRestrictor?: LoadRestrictor;
  /** Filled by the build: every `configurations` read so far (they apply to the renames above). */
  configurations?: Configurations;
  /** Filled by the build: the top kustomization's sortOptions (the only ones kustomize honours). */
  sortOptions?: { value: unknown; file: string };
}

/**
 * Builds the kustomization in `dir` into a list of resources, in kustomize's order: resources
 * (bases built first), generators, patches, then namespace, prefixes/suffixes with name
 * references, labels, annotations, images, replicas and replacements.
 */
export async function buildKustomization(
  dir: string,
  ctx: BuildContext,
  stack: string[] = [],
): Promise<Resource[]> {
  const shown = (p: string) => relative(ctx.root, p) || ".";
  const { k, files } = await readKustomization(dir, ctx, stack, shown);
  if (stack.length === 0) ctx.sortOptions = { value: k.sortOptions, file: files.file };
  const configurations = (ctx.configurations ??= { nameReference: [], namespace: [] });
  let resources = await loadResources(k, files, ctx, [...stack, dir], shown);
  // After the resources: a base's configurations are known before this level renames.
  await readConfigurations(k, files, shown, configurations);
  await runGenerators(k, resources, (ref) => files.read(ref), files.file);
  resources = await applyPatches(k, resources, files, shown);
  if (typeof k.namespace === "string" && k.namespace !== "")
    setNamespace(resources, k.namespace, configurations.namespace);
  const prefix = str(k.namePrefix);
  const suffix = str(k.nameSuffix);
  if (prefix || suffix) rename(resources, prefix, suffix, configurations.nameReference);
  applyLabels(resources, k);
  if (isRecord(k.commonAnnotations)) setAnnotations(resources, k.commonAnnotations);
  for (const image of asRecords(k.images)) setImage(resources, image);
  for (const replica of asRecords(k.replicas)) setReplicas(resources, replica);
  for (const replacement of await replacementsOf(k, files, shown))
    applyReplacement(resources, replacement, files.file);
  return resources;
}

/**
 * kustomize's last step of a build: generated ConfigMaps and Secrets take their content hash as a
 * name suffix, and every reference to them follows.
 */
export function addNameHashes(resources: Resource[], references: readonly NameReference[] = []): void {
  const renamed = new Map<string, Map<string, string>>();
  for (const r of resources) {
    if (!r.hash) continue;
    const kind = kindOf(r.object);
    const meta = metadataOf(r.object);
    const old = str(meta.name);
    meta.name = `${old}-${contentHash(r.object)}`;
    r.names.push(old);
    if (!renamed.has(kind)) renamed.set(kind, new Map());
    renamed.get(kind)!.set(old, str(meta.name));
  }
  if (renamed.size > 0) fixReferences(resources, renamed, references);
}

async function readKustomization(
  dir: string,
  ctx: BuildContext,
  stack: string[],
  shown: (p: string) => string,
): Promise<{ k: Record<string, unknown>; files: KustomizationFiles }> {
  const file = await findKustomization(dir);
  if (!file) {
    throw new InvalidInputError(`no kustomization.yaml in ${shown(dir)}`, {
      hint: "point tsop at a directory with a kustomization.yaml, or pass the rendered manifests with -f",
    });
  }
  if (stack.includes(dir))
    throw new InvalidInputError(`kustomization cycle: ${[...stack, dir].map(shown).join(" -> ")}`);
  const k = parseYaml(await readFile(file, "utf8"), shown(file));
  if (!isRecord(k))
    throw new InvalidInputError("the kustomization is not a mapping", { location: { file: shown(file) } });
  for (const field of Object.keys(k)) {
    if (SUPPORTED_FIELDS.has(field)) continue;
    throw new UsageError(`kustomize "${field}" is not supported by tsop's built-in kustomize reader`, {
      location: { file: shown(file) },
      hint: `render the tree with kustomize and pass the result: kustomize build ${shown(dir)} | tsop bundle -f -`,
    });
  }
  return { k, files: new KustomizationFiles(dir, shown(file), ctx.loadRestrictor ?? "rootOnly", shown) };
}

/** The kustomization's resources: files (within the load restrictor) and directories (built). */
async function loadResources(
  k: Record<string, unknown>,
  files: KustomizationFiles,
  ctx: BuildContext,
  stack: string[],
  shown: (p: string) => string,
): Promise<Resource[]> {
  const resources: Resource[] = [];
  for (const entry of [...asArray(k.resources), ...asArray(k.bases), ...asArray(k.crds)]) {
    const ref = str(entry);
    if (/^[a-z]+:\/\//i.test(ref) || ref.startsWith("github.com/")) {
      throw new UsageError(`remote resource "${ref}" is not supported`, {
        location: { file: files.file },
        hint: "vendor the resource into the project, or pass rendered manifests with -f",
      });
    }
    const path = join(files.dir, ref);
    if (await files.isDirectory(ref)) {
      resources.push(...(await buildKustomization(path, ctx, stack)));
      continue;
    }
    if (!(await files.exists(ref))) {
      if (ctx.optional?.has(path)) continue;
      throw new InvalidInputError(`${files.file} lists ${ref}, which does not exist (${shown(path)})`, {
        hint: `${shown(files.dir)}/${ref}`.includes("crd")
          ? "run `tsop generate` to write the CRDs, or remove the entry"
          : "create the file, or remove the entry from resources",
      });
    }
    for (const loaded of await readDocuments(await files.resolve(ref), shown(path))) {
      resources.push({ ...loaded, names: [nameOf(loaded.object)], namespaces: [namespaceOf(loaded.object)] });
    }
  }
  refuseDuplicateIds(resources, files.file);
  return resources;
}

/**
 * kustomize keeps one object per id (apiVersion, kind, namespace, name) and refuses a second: "may
 * not add resource with an already registered id". A tree with two objects of one id (a RoleBinding
 * the project kept and one `tsop generate` writes) must fail here as it fails there.
 */
/** kustomize's spelling of an id: Kind.version.group/name.namespace. */
function resourceId(o: Record<string, unknown>): string {
  const apiVersion = str(o.apiVersion);
  const slash = apiVersion.indexOf("/");
  const [group, version] =
    slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${kindOf(o)}.${version || "[noVer]"}.${group || "[noGrp]"}/${nameOf(o)}.${namespaceOf(o) || "[noNs]"}`;
}

function refuseDuplicateIds(resources: Resource[], file: string): void {
  const seen = new Map<string, Resource>();
  for (const r of resources) {
    const o = r.object;
    const id = resourceId(o);
    const first = seen.get(id);
    if (!first) {
      seen.set(id, r);
      continue;
    }
    throw new InvalidInputError(
      `may not add resource with an already registered id: ${id} (in ${first.origin.file} and in ${r.origin.file})`,
      {
        location: { file },
        hint: "keep one of the two objects: remove the other file from resources, or rename its object",
      },
    );
  }
}

async function applyPatches(
  k: Record<string, unknown>,
  input: Resource[],
  files: KustomizationFiles,
  shown: (p: string) => string,
): Promise<Resource[]> {
  const patchSource = async (p: Record<string, unknown>): Promise<{ text: string; source: string }> => {
    if (typeof p.path === "string")
      return {
        text: (await files.read(p.path, "patch file")).toString("utf8"),
        source: shown(join(files.dir, p.path)),
      };
    return { text: str(p.patch), source: `${files.file} (inline patch)` };
  };
  let resources = input;
  for (const entry of asArray(k.patchesStrategicMerge)) {
    const ref = str(entry);
    const inline = ref.includes("\n") || ref.includes(":");
    const { text, source } = inline
      ? { text: ref, source: `${files.file} (inline patch)` }
      : await patchSource({ path: ref });
    resources = applyPatch(resources, text, source, undefined);
  }
  for (const p of [...asRecords(k.patches), ...asRecords(k.patchesJson6902)]) {
    const { text, source } = await patchSource(p);
    resources = applyPatch(resources, text, source, isRecord(p.target) ? p.target : undefined);
  }
  return resources;
}

/** kustomize `replicas`: the replica count of Deployments, ReplicaSets and StatefulSets by name. */
function setReplicas(resources: Resource[], replica: Record<string, unknown>): void {
  for (const r of resources) {
    if (!["Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"].includes(kindOf(r.object)))
      continue;
    if (![nameOf(r.object), ...r.names].includes(str(replica.name))) continue;
    if (!isRecord(r.object.spec)) r.object.spec = {};
    (r.object.spec as Record<string, unknown>).replicas = replica.count;
  }
}

/** A JSON 6902 patch (a list of operations), or the strategic-merge patches of a YAML stream. */
function parsePatch(text: string, source: string): unknown {
  const docs = parseYamlDocuments(text, source);
  if (Array.isArray(docs[0]?.value)) return docs[0].value;
  return loadedObjects(docs, source).map((d) => d.object);
}

function applyPatch(
  resources: Resource[],
  text: string,
  source: string,
  target: Record<string, unknown> | undefined,
): Resource[] {
  const parsed = parsePatch(text, source);
  if (Array.isArray(parsed) && parsed.length > 0 && isRecord(parsed[0]) && "op" in parsed[0]) {
    if (!target)
      throw new InvalidInputError("a JSON 6902 patch needs a target", {
        location: { file: source },
      });
    return resources.map((r) =>
      matches(r, target) ? { ...r, object: applyJsonPatch(r.object, parsed, source) } : r,
    );
  }
  const patches = (Array.isArray(parsed) ? parsed : [parsed]).filter(isRecord);
  let out = resources;
  for (const patch of patches) {
    const selector = target ?? {
      kind: patch.kind,
      name: nameOf(patch),
      ...(namespaceOf(patch) ? { namespace: namespaceOf(patch) } : {}),
    };
    let hit = false;
    out = out.map((r) => {
      if (!matches(r, selector)) return r;
      hit = true;
      const body = clone(patch);
      if (target) {
        // A targeted patch must not rename its targets.
        delete body.apiVersion;
        delete body.kind;
        if (isRecord(body.metadata)) {
          delete body.metadata.name;
          delete body.metadata.namespace;
        }
      }
      return { ...r, object: mergeMap(r.object, body) };
    });
    if (!hit && !target) {
      throw new InvalidInputError(`patch for ${str(patch.kind)} ${nameOf(patch)} matches no resource`, {
        location: { file: source },
      });
    }
  }
  return out;
}

function nameMatches(pattern: unknown, candidates: readonly string[]): boolean {
  if (typeof pattern !== "string" || pattern === "") return true;
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${pattern})$`);
  } catch {
    return candidates.includes(pattern);
  }
  return candidates.some((c) => re.test(c));
}

function labelsMatch(selector: unknown, labels: unknown): boolean {
  if (typeof selector !== "string" || selector === "") return true;
  const have = isRecord(labels) ? labels : {};
  return selector.split(",").every((term) => {
    const [key, value] = term.split("=").map((s) => s.trim());
    if (!key) return true;
    return value === undefined ? key in have : have[key] === value;
  });
}

/** Does a resource match a kustomize selector (group/version/kind/name/namespace, label selectors)? */
export function matches(r: Resource, selector: Record<string, unknown>): boolean {
  const o = r.object;
  if (typeof selector.kind === "string" && selector.kind !== "" && selector.kind !== kindOf(o)) return false;
  if (typeof selector.group === "string" && selector.group !== groupOf(o)) return false;
  if (typeof selector.version === "string" && selector.version !== "" && selector.version !== versionOf(o))
    return false;
  if (!nameMatches(selector.name, [nameOf(o), ...r.names])) return false;
  if (!nameMatches(selector.namespace, [namespaceOf(o), ...r.namespaces])) return false;
  const meta = isRecord(o.metadata) ? o.metadata : {};
  return (
    labelsMatch(selector.labelSelector, meta.labels) &&
    labelsMatch(selector.annotationSelector, meta.annotations)
  );
}

export function setNamespace(
  resources: Resource[],
  namespace: string,
  specs: readonly FieldSpec[] = [],
): void {
  const serviceAccounts = new Set(
    resources
      .filter((r) => kindOf(r.object) === "ServiceAccount")
      .flatMap((r) => [nameOf(r.object), ...r.names]),
  );
  for (const r of resources) {
    const o = r.object;
    const kind = kindOf(o);
    if (kind === "Namespace") {
      const meta = metadataOf(o);
      r.names.push(str(meta.name));
      meta.name = namespace;
      continue;
    }
    if (kind === "RoleBinding" || kind === "ClusterRoleBinding") {
      for (const subject of asRecords(o.subjects)) {
        if (subject.kind === "ServiceAccount" && serviceAccounts.has(str(subject.name)))
          subject.namespace = namespace;
      }
    }
    if (kind === "MutatingWebhookConfiguration" || kind === "ValidatingWebhookConfiguration") {
      for (const hook of asRecords(o.webhooks)) {
        const service = getField(hook, parseFieldPath("clientConfig.service"));
        if (isRecord(service)) service.namespace = namespace;
      }
    }
    if (kind === "CustomResourceDefinition") {
      const service = getField(o, parseFieldPath("spec.conversion.webhook.clientConfig.service"));
      if (isRecord(service)) service.namespace = namespace;
    }
    for (const spec of specs.filter((f) => specMatches(f, o)))
      for (const site of fieldSites(o, spec.path, spec.create)) site.holder[site.key] = namespace;
    if (CLUSTER_SCOPED_KINDS.has(kind)) continue;
    const meta = metadataOf(o);
    r.namespaces.push(str(meta.namespace));
    meta.namespace = namespace;
  }
}

/** Which fields refer to an object of a kind by name (kustomize's nameReference defaults, trimmed). */
function referenceSites(
  o: Record<string, unknown>,
): Array<{ kind: string; holder: Record<string, unknown>; key: string }> {
  const sites: Array<{ kind: string; holder: Record<string, unknown>; key: string }> = [];
  const kind = kindOf(o);
  const pod = podSpecOf(o);
  if (pod) {
    if (typeof pod.serviceAccountName === "string")
      sites.push({ kind: "ServiceAccount", holder: pod, key: "serviceAccountName" });
    for (const v of asRecords(pod.volumes)) {
      if (isRecord(v.configMap)) sites.push({ kind: "ConfigMap", holder: v.configMap, key: "name" });
      if (isRecord(v.secret)) sites.push({ kind: "Secret", holder: v.secret, key: "secretName" });
      const projected = isRecord(v.projected) ? asRecords(v.projected.sources) : [];
      for (const source of projected) {
        if (isRecord(source.configMap))
          sites.push({ kind: "ConfigMap", holder: source.configMap, key: "name" });
        if (isRecord(source.secret)) sites.push({ kind: "Secret", holder: source.secret, key: "name" });
      }
    }
    for (const s of asRecords(pod.imagePullSecrets)) sites.push({ kind: "Secret", holder: s, key: "name" });
    for (const c of [...asRecords(pod.containers), ...asRecords(pod.initContainers)]) {
      for (const from of asRecords(c.envFrom)) {
        if (isRecord(from.configMapRef))
          sites.push({ kind: "ConfigMap", holder: from.configMapRef, key: "name" });
        if (isRecord(from.secretRef)) sites.push({ kind: "Secret", holder: from.secretRef, key: "name" });
      }
      for (const e of asRecords(c.env)) {
        const vf = isRecord(e.valueFrom) ? e.valueFrom : {};
        if (isRecord(vf.configMapKeyRef))
          sites.push({ kind: "ConfigMap", holder: vf.configMapKeyRef, key: "name" });
        if (isRecord(vf.secretKeyRef)) sites.push({ kind: "Secret", holder: vf.secretKeyRef, key: "name" });
      }
    }
  }
  if (kind === "RoleBinding" || kind === "ClusterRoleBinding") {
    for (const s of asRecords(o.subjects))
      if (s.kind === "ServiceAccount") sites.push({ kind: "ServiceAccount", holder: s, key: "name" });
    if (isRecord(o.roleRef)) sites.push({ kind: str(o.roleRef.kind), holder: o.roleRef, key: "name" });
  }
  if (kind === "MutatingWebhookConfiguration" || kind === "ValidatingWebhookConfiguration") {
    for (const hook of asRecords(o.webhooks)) {
      const service = getField(hook, parseFieldPath("clientConfig.service"));
      if (isRecord(service)) sites.push({ kind: "Service", holder: service, key: "name" });
    }
  }
  if (kind === "APIService" && isRecord(getField(o, parseFieldPath("spec.service")))) {
    sites.push({
      kind: "Service",
      holder: getField(o, parseFieldPath("spec.service")) as Record<string, unknown>,
      key: "name",
    });
  }
  return sites;
}

/** The pod spec of a workload (Deployment, StatefulSet, DaemonSet, Job, ReplicaSet, CronJob, Pod). */
export function podSpecOf(o: Record<string, unknown>): Record<string, unknown> | undefined {
  const kind = kindOf(o);
  const path =
    kind === "Pod"
      ? "spec"
      : kind === "CronJob"
        ? "spec.jobTemplate.spec.template.spec"
        : "spec.template.spec";
  if (!["Pod", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet"].includes(kind))
    return undefined;
  const spec = getField(o, parseFieldPath(path));
  return isRecord(spec) ? spec : undefined;
}

function rename(
  resources: Resource[],
  prefix: string,
  suffix: string,
  references: readonly NameReference[],
): void {
  const renamed = new Map<string, Map<string, string>>();
  for (const r of resources) {
    const kind = kindOf(r.object);
    if (kind === "CustomResourceDefinition" || kind === "Namespace") continue;
    const meta = metadataOf(r.object);
    const old = str(meta.name);
    const next = `${prefix}${old}${suffix}`;
    r.names.push(old);
    meta.name = next;
    if (!renamed.has(kind)) renamed.set(kind, new Map());
    renamed.get(kind)!.set(old, next);
  }
  fixReferences(resources, renamed, references);
}

/**
 * Points every name reference (kind → old name → new name) at the new names: kustomize's default
 * reference fields plus those the `configurations` add.
 */
function fixReferences(
  resources: Resource[],
  renamed: Map<string, Map<string, string>>,
  references: readonly NameReference[],
): void {
  for (const r of resources) {
    const configured = references.flatMap((ref) =>
      ref.fieldSpecs
        .filter((spec) => specMatches(spec, r.object))
        .flatMap((spec) => fieldSites(r.object, spec.path).map((site) => ({ kind: ref.kind, ...site }))),
    );
    for (const site of [...referenceSites(r.object), ...configured]) {
      const value = str(site.holder[site.key]);
      const next = renamed.get(site.kind)?.get(value);
      if (next !== undefined) site.holder[site.key] = next;
    }
  }
}

function addLabels(target: Record<string, unknown>, key: string, pairs: Record<string, unknown>): void {
  target[key] = { ...(isRecord(target[key]) ? target[key] : {}), ...pairs };
}

function applyLabels(resources: Resource[], k: Record<string, unknown>): void {
  const sets: Array<{ pairs: Record<string, unknown>; selectors: boolean; templates: boolean }> = [];
  if (isRecord(k.commonLabels)) sets.push({ pairs: k.commonLabels, selectors: true, templates: true });
  for (const l of asRecords(k.labels)) {
    if (isRecord(l.pairs))
      sets.push({
        pairs: l.pairs,
        selectors: l.includeSelectors === true,
        templates: l.includeTemplates === true || l.includeSelectors === true,
      });
  }
  for (const set of sets) {
    for (const r of resources) {
      const o = r.object;
      addLabels(metadataOf(o), "labels", set.pairs);
      const kind = kindOf(o);
      if (set.templates) {
        const template = getField(o, parseFieldPath("spec.template"));
        if (isRecord(template) && kind !== "Pod") addLabels(metadataOf(template), "labels", set.pairs);
      }
      if (set.selectors) {
        if (kind === "Service" && isRecord(o.spec)) addLabels(o.spec, "selector", set.pairs);
        const selector = getField(o, parseFieldPath("spec.selector"));
        if (kind !== "Service" && isRecord(selector)) addLabels(selector, "matchLabels", set.pairs);
      }
    }
  }
}

/** kustomize's commonAnnotations field specs: every object, and the pod templates of workloads. */
const ANNOTATED_TEMPLATES: Record<string, string[]> = {
  Deployment: ["spec.template"],
  ReplicaSet: ["spec.template"],
  DaemonSet: ["spec.template"],
  StatefulSet: ["spec.template"],
  Job: ["spec.template"],
  ReplicationController: ["spec.template"],
  CronJob: ["spec.jobTemplate", "spec.jobTemplate.spec.template"],
};

function setAnnotations(resources: Resource[], pairs: Record<string, unknown>): void {
  for (const r of resources) {
    const targets = [metadataOf(r.object)];
    for (const path of ANNOTATED_TEMPLATES[kindOf(r.object)] ?? []) {
      const holder = getField(r.object, parseFieldPath(path));
      if (isRecord(holder)) targets.push(metadataOf(holder));
    }
    for (const meta of targets) addLabels(meta, "annotations", pairs);
  }
}

/** kustomize `images`: replaces name/tag/digest of every container image whose name matches. */
export function setImage(resources: Resource[], image: Record<string, unknown>): void {
  const name = str(image.name);
  for (const r of resources) {
    const pod = podSpecOf(r.object);
    if (!pod) continue;
    for (const c of [...asRecords(pod.containers), ...asRecords(pod.initContainers)]) {
      const ref = str(c.image);
      const { repo } = splitImage(ref);
      if (repo !== name) continue;
      c.image = overrideImage(ref, image);
    }
  }
}

export function splitImage(ref: string): { repo: string; tag?: string; digest?: string } {
  const at = ref.indexOf("@");
  const digest = at >= 0 ? ref.slice(at + 1) : undefined;
  const rest = at >= 0 ? ref.slice(0, at) : ref;
  const colon = rest.lastIndexOf(":");
  const tagged = colon > rest.lastIndexOf("/");
  return {
    repo: tagged ? rest.slice(0, colon) : rest,
    ...(tagged ? { tag: rest.slice(colon + 1) } : {}),
    ...(digest ? { digest } : {}),
  };
}

function overrideImage(ref: string, image: Record<string, unknown>): string {
  const parts = splitImage(ref);
  const repo = str(image.newName) || parts.repo;
  if (str(image.digest)) return `${repo}@${str(image.digest)}`;
  const tag = str(image.newTag) || parts.tag;
  return tag ? `${repo}:${tag}` : repo;
}

async function replacementsOf(
  k: Record<string, unknown>,
  files: KustomizationFiles,
  shown: (p: string) => string,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const entry of asRecords(k.replacements)) {
    if (typeof entry.path === "string") {
      const text = (await files.read(entry.path, "replacements file")).toString("utf8");
      const parsed = parseYaml(text, shown(join(files.dir, entry.path)));
      out.push(...asRecords(Array.isArray(parsed) ? parsed : [parsed]));
    } else out.push(entry);
  }
  return out;
}

function applyReplacement(resources: Resource[], replacement: Record<string, unknown>, file: string): void {
  const source = isRecord(replacement.source) ? replacement.source : {};
  const from = resources.filter((r) => matches(r, source));
  if (from.length !== 1) {
    throw new InvalidInputError(
      `replacement source ${str(source.kind)} ${str(source.name)} matches ${from.length} resources (need exactly 1)`,
      { location: { file } },
    );
  }
  const value = getField(from[0]!.object, parseFieldPath(str(source.fieldPath) || "metadata.name"));
  if (value === undefined) return;
  for (const target of asRecords(replacement.targets)) {
    const select = isRecord(target.select) ? target.select : {};
    const rejects = asRecords(target.reject);
    const options = isRecord(target.options) ? target.options : {};
    for (const r of resources) {
      if (!matches(r, select) || rejects.some((rej) => matches(r, rej))) continue;
      for (const fieldPath of asArray(target.fieldPaths).map(str)) {
        const segments = parseFieldPath(fieldPath);
        let next = value;
        if (typeof options.delimiter === "string") {
          const current = getField(r.object, segments);
          const parts = typeof current === "string" ? current.split(options.delimiter) : [""];
          const index = typeof options.index === "number" ? options.index : 0;
          // As kustomize: a negative index prefixes, one past the end appends.
          if (index < 0) parts.unshift(String(value));
          else if (index >= parts.length) parts.push(String(value));
          else parts[index] = String(value);
          next = parts.join(options.delimiter);
        }
        setField(r.object, segments, clone(next), options.create === true);
      }
    }
  }
}
