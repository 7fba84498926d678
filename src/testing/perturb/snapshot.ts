// The state a run ends in, normalised so two runs of a correct operator compare equal: what the
// API server assigns (resourceVersion, uid, timestamps, managedFields, generation), generated
// names (wherever they are quoted) and perturb's own marks are left out; the rest is compared
// field by field.
import type { Client, KindRef, KubeObjectLike } from "../../runtime/index.js";
import { CONFLICT_ANNOTATION } from "./operator.js";

type Json = unknown;
type Obj = Record<string, Json>;

/** Paths (dotted, `*` any key) always left out: they differ between any two runs. */
export const NORMALISED_PATHS = [
  "metadata.resourceVersion",
  "metadata.uid",
  "metadata.creationTimestamp",
  "metadata.deletionTimestamp",
  "metadata.managedFields",
  "metadata.generation",
  "metadata.selfLink",
  "metadata.ownerReferences.*.uid",
  `metadata.annotations.${CONFLICT_ANNOTATION.replaceAll(".", "\\.")}`,
  "status.observedGeneration",
  "status.conditions.*.observedGeneration",
];

/** Keys whose values are times: left out wherever they appear. */
const TIME_KEY = /(Time|Timestamp)$/;

export interface Snapshot {
  /** Normalised identity ("Kind namespace/name", generated names as "prefix*") → normalised object. */
  objects: Map<string, Obj[]>;
}

export async function takeSnapshot(
  admin: Client,
  kinds: Array<KindRef<KubeObjectLike>>,
  ignore: string[],
): Promise<Snapshot> {
  const patterns = [...NORMALISED_PATHS, ...ignore].map(splitPath);
  const objects = new Map<string, Obj[]>();
  const listed: Obj[] = [];
  for (const kind of kinds) listed.push(...((await admin.list(kind)) as unknown as Obj[]));
  const generated = generatedNames(listed);
  for (const obj of listed) {
    const id = identity(obj);
    objects.set(id, [...(objects.get(id) ?? []), normalise(obj, patterns, generated)]);
  }
  for (const list of objects.values()) list.sort((a, b) => (canonical(a) < canonical(b) ? -1 : 1));
  return { objects };
}

/** Each generated name → its prefix and "*", longest first (a name may contain a shorter one). */
function generatedNames(objects: Obj[]): Array<[string, string]> {
  const names: Array<[string, string]> = [];
  for (const obj of objects) {
    const meta = (obj.metadata ?? {}) as Obj;
    if (typeof meta.generateName === "string" && typeof meta.name === "string")
      names.push([meta.name, `${meta.generateName}*`]);
  }
  return names.sort(([a], [b]) => b.length - a.length);
}

/** "Deployment default/web"; a generated name counts by its prefix: "Pod default/web-*". */
export function identity(obj: Obj): string {
  const meta = (obj.metadata ?? {}) as Obj;
  const name = typeof meta.generateName === "string" ? `${meta.generateName}*` : String(meta.name);
  return `${String(obj.kind)} ${meta.namespace ? `${String(meta.namespace)}/` : ""}${name}`;
}

/** What differs between the clean run's snapshot and a perturbed one, one line per object. */
export function diffSnapshots(
  clean: Snapshot,
  perturbed: Snapshot,
): Array<{ object: string; message: string }> {
  const out: Array<{ object: string; message: string }> = [];
  const ids = [...new Set([...clean.objects.keys(), ...perturbed.objects.keys()])].sort();
  for (const id of ids) {
    const want = clean.objects.get(id) ?? [];
    const got = perturbed.objects.get(id) ?? [];
    if (want.length !== got.length) {
      out.push({
        object: id,
        message:
          got.length === 0
            ? "missing: the unperturbed run has it, this run does not"
            : want.length === 0
              ? `extra: this run has it (${got.length}), the unperturbed run does not`
              : `count: ${want.length} in the unperturbed run, ${got.length} in this run`,
      });
      continue;
    }
    for (const [i, w] of want.entries()) {
      const fields = diffValues(w, got[i], "");
      if (fields.length > 0) out.push({ object: id, message: fields.join("; ") });
    }
  }
  return out;
}

/** "spec.replicas: 3 (unperturbed) ≠ 2" per differing leaf. */
function diffValues(want: Json, got: Json, path: string): string[] {
  if (canonical(want) === canonical(got)) return [];
  if (isObj(want) && isObj(got)) {
    const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])].sort();
    return keys.flatMap((k) => diffValues(want[k], got[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(want) && Array.isArray(got) && want.length === got.length) {
    return want.flatMap((w, i) => diffValues(w, got[i], `${path}[${i}]`));
  }
  return [`${path || "(object)"}: ${show(want)} (unperturbed) ≠ ${show(got)}`];
}

function show(value: Json): string {
  if (value === undefined) return "absent";
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** "a.b\.c.*" → ["a", "b.c", "*"]. */
function splitPath(path: string): string[] {
  return path.split(/(?<!\\)\./).map((p) => p.replaceAll("\\.", "."));
}

function normalise(value: Json, patterns: string[][], generated: Array<[string, string]>): Obj {
  const out = strip(value, patterns, [], generated);
  return out === EMPTIED ? {} : (out as Obj);
}

function strip(value: Json, patterns: string[][], path: string[], generated: Array<[string, string]>): Json {
  if (Array.isArray(value)) return value.map((v, i) => strip(v, patterns, [...path, String(i)], generated));
  // A generated name quoted elsewhere (a ReplicaSet named after its Deployment, a message) differs too.
  if (typeof value === "string")
    return generated.reduce((text, [name, as]) => text.replaceAll(name, as), value);
  if (!isObj(value)) return value;
  const out: Obj = {};
  let dropped = false;
  for (const key of Object.keys(value).sort()) {
    const at = [...path, key];
    const ignored =
      (TIME_KEY.test(key) && (typeof value[key] === "string" || value[key] === null)) ||
      patterns.some((p) => p.length === at.length && p.every((s, i) => s === "*" || s === at[i]));
    if (ignored) {
      dropped = true;
      continue;
    }
    const meta = path.length === 0 && key === "metadata" && isObj(value[key]) ? value[key] : undefined;
    // A generated name differs in every run: its prefix (the identity) is what is compared.
    if (meta && typeof meta.generateName === "string") {
      const { name: _generated, ...rest } = meta;
      out[key] = strip(rest, patterns, at, generated);
      continue;
    }
    const kept = strip(value[key], patterns, at, generated);
    // A map left empty by what was ignored (annotations holding only perturb's mark) is absent.
    if (kept === EMPTIED) dropped = true;
    else out[key] = kept;
  }
  return dropped && Object.keys(out).length === 0 ? EMPTIED : out;
}

const EMPTIED = Symbol("emptied");

function isObj(value: Json): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function canonical(value: Json): string {
  return JSON.stringify(value, (_k, v: Json) =>
    isObj(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
