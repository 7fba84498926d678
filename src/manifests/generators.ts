// kustomize's configMapGenerator and secretGenerator, as kustomize (api/kv, internal/generators)
// builds them: key/value pairs from env files, then literals, then files; a ConfigMap keeps text
// in `data` and non-UTF-8 content in `binaryData`, a Secret base64-encodes every value; options
// (labels, annotations, immutable, disableNameSuffixHash) merged with `generatorOptions`; behavior
// create, merge or replace against a resource of the same name. The content hash is added to the
// name at the end of the top-level build (hash.ts), as kustomize does.
import { basename } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import {
  asArray,
  asRecords,
  isRecord,
  kindOf,
  metadataOf,
  nameOf,
  namespaceOf,
  type Resource,
  str,
} from "./object.js";

/** Reads a file named by a kustomization (relative to its directory), within the load restrictor. */
export type ReadFile = (path: string) => Promise<Buffer>;

interface GeneratorOptions {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  immutable: boolean;
  disableNameSuffixHash: boolean;
}

type Kind = "ConfigMap" | "Secret";
const FIELDS: Record<Kind, string> = { ConfigMap: "configMapGenerator", Secret: "secretGenerator" };
const KEY = /^[-._a-zA-Z0-9]+$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

function stringMap(value: unknown): Record<string, string> {
  return isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) : {};
}

/** generatorOptions (global) into a generator's own options: its own labels/annotations win. */
function mergedOptions(local: unknown, global: unknown): GeneratorOptions {
  const l = isRecord(local) ? local : {};
  const g = isRecord(global) ? global : {};
  return {
    labels: { ...stringMap(g.labels), ...stringMap(l.labels) },
    annotations: { ...stringMap(g.annotations), ...stringMap(l.annotations) },
    immutable: l.immutable === true || g.immutable === true,
    disableNameSuffixHash: l.disableNameSuffixHash === true || g.disableNameSuffixHash === true,
  };
}

/** "k=v" with one level of matching quotes removed, as kustomize's parseLiteralSource. */
function literalPair(source: string, where: string): [string, Buffer] {
  const eq = source.indexOf("=");
  if (eq <= 0) throw new InvalidInputError(`${where}: invalid literal "${source}", expected key=value`);
  let value = source.slice(eq + 1);
  if (value.length >= 2 && value[0] === value[value.length - 1] && (value[0] === '"' || value[0] === "'"))
    value = value.slice(1, -1);
  return [source.slice(0, eq), Buffer.from(value)];
}

/** "path" (key = the file's base name) or "key=path". */
function fileSource(source: string, where: string): { key: string; path: string } {
  const parts = source.split("=");
  if (parts.length === 1) return { key: basename(source), path: source };
  if (parts.length > 2 || !parts[0] || !parts[1])
    throw new InvalidInputError(`${where}: invalid file source "${source}", expected path or key=path`);
  return { key: parts[0], path: parts[1] };
}

/** KEY=VALUE lines; blank lines and # comments skipped; the value is kept as written. */
function envPairs(text: string, file: string): Array<[string, Buffer]> {
  const pairs: Array<[string, Buffer]> = [];
  text
    .replace(/^\uFEFF/, "")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.replace(/\r$/, "").trimStart();
      if (line === "" || line.startsWith("#")) return;
      const eq = line.indexOf("=");
      const key = eq < 0 ? line : line.slice(0, eq);
      if (!ENV_NAME.test(key))
        throw new InvalidInputError(`${file}:${i + 1}: "${key}" is not a valid environment variable name`);
      pairs.push([key, Buffer.from(eq < 0 ? "" : line.slice(eq + 1))]);
    });
  return pairs;
}

async function pairsOf(
  g: Record<string, unknown>,
  read: ReadFile,
  where: string,
): Promise<Map<string, Buffer>> {
  const pairs: Array<[string, Buffer]> = [];
  for (const env of [...asArray(g.envs), ...(g.env !== undefined ? [g.env] : [])].map(str))
    pairs.push(...envPairs((await read(env)).toString("utf8"), env));
  for (const literal of asArray(g.literals).map(str)) pairs.push(literalPair(literal, where));
  for (const source of asArray(g.files).map(str)) {
    const { key, path } = fileSource(source, where);
    pairs.push([key, await read(path)]);
  }
  const out = new Map<string, Buffer>();
  for (const [key, value] of pairs) {
    if (!KEY.test(key))
      throw new InvalidInputError(
        `${where}: "${key}" is not a valid ${"ConfigMap/Secret"} key (letters, digits, "-", "_", ".")`,
      );
    if (out.has(key)) throw new InvalidInputError(`${where}: the key "${key}" is given twice`);
    out.set(key, value);
  }
  return out;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
function text(value: Buffer): string | undefined {
  try {
    return utf8.decode(value);
  } catch {
    return undefined;
  }
}

function dataFields(kind: Kind, pairs: Map<string, Buffer>): Record<string, unknown> {
  const data: Record<string, string> = {};
  const binaryData: Record<string, string> = {};
  for (const [key, value] of pairs) {
    const asText = kind === "ConfigMap" ? text(value) : undefined;
    if (asText !== undefined) data[key] = asText;
    else if (kind === "Secret") data[key] = value.toString("base64");
    else binaryData[key] = value.toString("base64");
  }
  return {
    ...(Object.keys(data).length > 0 ? { data } : {}),
    ...(Object.keys(binaryData).length > 0 ? { binaryData } : {}),
  };
}

async function generate(
  kind: Kind,
  g: Record<string, unknown>,
  globalOptions: unknown,
  read: ReadFile,
  file: string,
): Promise<{ object: Record<string, unknown>; behavior: string; hash: boolean }> {
  const name = str(g.name);
  const where = `${file}: ${FIELDS[kind]} ${name || "(unnamed)"}`;
  if (!name) throw new InvalidInputError(`${where}: a generated ${kind} needs a name`);
  const behavior = str(g.behavior) || "create";
  if (!["create", "merge", "replace"].includes(behavior))
    throw new InvalidInputError(`${where}: behavior "${behavior}" must be create, merge or replace`);
  const options = mergedOptions(g.options, globalOptions);
  const metadata: Record<string, unknown> = { name };
  if (str(g.namespace)) metadata.namespace = str(g.namespace);
  if (Object.keys(options.labels).length > 0) metadata.labels = options.labels;
  if (Object.keys(options.annotations).length > 0) metadata.annotations = options.annotations;
  const object: Record<string, unknown> = { apiVersion: "v1", kind, metadata };
  if (kind === "Secret") object.type = str(g.type) || "Opaque";
  Object.assign(object, dataFields(kind, await pairsOf(g, read, where)));
  if (options.immutable) object.immutable = true;
  return { object, behavior, hash: !options.disableNameSuffixHash };
}

/** The one resource a merge/replace generator acts on: same kind and (original or current) name. */
function target(resources: Resource[], object: Record<string, unknown>, where: string): Resource | undefined {
  const matches = resources.filter(
    (r) =>
      kindOf(r.object) === kindOf(object) &&
      [nameOf(r.object), ...r.names].includes(nameOf(object)) &&
      (!namespaceOf(object) || [namespaceOf(r.object), ...r.namespaces].includes(namespaceOf(object))),
  );
  if (matches.length > 1)
    throw new InvalidInputError(`${where}: ${matches.length} resources could take the merge`);
  return matches[0];
}

function mergeInto(old: Resource, object: Record<string, unknown>, behavior: string): void {
  const meta = metadataOf(object);
  const oldMeta = metadataOf(old.object);
  meta.labels = { ...stringMap(oldMeta.labels), ...stringMap(meta.labels) };
  meta.annotations = { ...stringMap(oldMeta.annotations), ...stringMap(meta.annotations) };
  for (const key of ["labels", "annotations"])
    if (Object.keys(meta[key] as object).length === 0) delete meta[key];
  meta.name = oldMeta.name;
  if (oldMeta.namespace !== undefined) meta.namespace = oldMeta.namespace;
  else delete meta.namespace;
  if (behavior === "merge") {
    for (const field of ["data", "binaryData"]) {
      const merged = { ...stringMap(old.object[field]), ...stringMap(object[field]) };
      if (Object.keys(merged).length > 0) object[field] = merged;
    }
  }
  old.object = object;
}

/**
 * Runs the kustomization's generators into `resources` (after its resources, before its patches
 * and transformers, as kustomize does), marking those that take a hash suffix (`hash`).
 */
export async function runGenerators(
  k: Record<string, unknown>,
  resources: Resource[],
  read: ReadFile,
  file: string,
): Promise<void> {
  let index = 0;
  for (const kind of ["ConfigMap", "Secret"] as const) {
    for (const g of asRecords(k[FIELDS[kind]])) {
      const { object, behavior, hash } = await generate(kind, g, k.generatorOptions, read, file);
      const where = `${file}: ${FIELDS[kind]} ${nameOf(object)}`;
      const old = target(resources, object, where);
      if (behavior === "create") {
        if (old)
          throw new InvalidInputError(
            `${where}: a ${kind} ${nameOf(object)} already exists; use behavior: merge or replace`,
          );
        resources.push({
          object,
          origin: { file, doc: index++ },
          names: [nameOf(object)],
          namespaces: [namespaceOf(object)],
          hash,
        });
        continue;
      }
      if (!old) throw new InvalidInputError(`${where}: no ${kind} ${nameOf(object)} to ${behavior}`);
      mergeInto(old, object, behavior);
      old.hash = hash;
    }
  }
}
