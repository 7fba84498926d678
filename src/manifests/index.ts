// Reading an operator project's manifests into typed objects, without kustomize.
// Stages: documents.ts (multi-document streams with origins, read by common/yaml/) → kustomize.ts (resources within the load
// restrictor, generators.ts, patches via jsonpatch.ts/smp.ts, namespace, prefixes with name
// references, labels, images, replacements via fieldpath.ts) → hash.ts name suffixes → order.ts
// (kustomize's output order) → a flat list of objects with the file each came from.
import { join, resolve } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { addNameHashes, type BuildContext, buildKustomization } from "./kustomize.js";
import type { LoadRestrictor } from "./load-restrictor.js";
import type { LoadedObject } from "./object.js";
import { kustomizeOrder } from "./order.js";
import { parseDocuments, readDocuments } from "./documents.js";

export * from "./object.js";
export { podSpecOf, splitImage } from "./kustomize.js";
export { LOAD_RESTRICTORS, type LoadRestrictor } from "./load-restrictor.js";
export { parseDocuments, readDocuments } from "./documents.js";

export interface LoadManifestsOptions {
  cwd: string;
  /** A kustomization directory, relative to cwd (default config/manifests). */
  dir?: string;
  /** A multi-document file to read instead of the config tree; "-" is stdin (pass its text as stdin). */
  file?: string;
  stdin?: string;
  /** Files (relative to cwd) listed as resources that may not exist yet. */
  optional?: string[];
  /** Receives notes about parts of the kustomizations that were not applied. */
  notes?: string[];
  /** kustomize's load restrictor: rootOnly (default, as `kustomize build`) or none. */
  loadRestrictor?: LoadRestrictor;
}

export async function loadManifests(options: LoadManifestsOptions): Promise<LoadedObject[]> {
  if (options.file === "-") {
    if (options.stdin === undefined) throw new InvalidInputError("-f - needs the manifests on stdin");
    return parseDocuments(options.stdin, "<stdin>");
  }
  if (options.file !== undefined) return readDocuments(resolve(options.cwd, options.file), options.file);
  const dir = join(options.cwd, options.dir ?? join("config", "manifests"));
  const ctx: BuildContext = {
    root: options.cwd,
    optional: new Set((options.optional ?? []).map((p) => resolve(options.cwd, p))),
    ...(options.notes ? { notes: options.notes } : {}),
    ...(options.loadRestrictor ? { loadRestrictor: options.loadRestrictor } : {}),
  };
  const resources = await buildKustomization(dir, ctx);
  addNameHashes(resources, ctx.configurations?.nameReference);
  const ordered = kustomizeOrder(resources, ctx.sortOptions?.value, ctx.sortOptions?.file ?? dir);
  return ordered.map(({ object, origin }) => ({ object, origin }));
}
