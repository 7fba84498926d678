// A strategic merge patch close to kubectl's for the shapes config/ trees use: maps merge,
// `null` deletes, `$patch: delete|replace`, and lists of named things merge by their merge key.
import { clone, isRecord } from "./object.js";

/** List field name → merge key, from the Kubernetes API's patchMergeKey tags. */
const MERGE_KEYS: Record<string, string> = {
  containers: "name",
  initContainers: "name",
  ephemeralContainers: "name",
  env: "name",
  volumes: "name",
  volumeMounts: "mountPath",
  volumeDevices: "devicePath",
  ports: "containerPort",
  imagePullSecrets: "name",
  hostAliases: "ip",
  tolerations: "key",
  conditions: "type",
};

function mergeList(field: string, base: unknown[], patch: unknown[]): unknown[] {
  const key = MERGE_KEYS[field];
  if (!key || !patch.every(isRecord) || !base.every(isRecord)) return clone(patch);
  const out = base.map((item) => clone(item)) as Record<string, unknown>[];
  for (const item of patch as Record<string, unknown>[]) {
    const index = out.findIndex((existing) => existing[key] === item[key]);
    if (item.$patch === "delete") {
      if (index >= 0) out.splice(index, 1);
    } else if (index >= 0) out[index] = mergeMap(out[index] ?? {}, item);
    else out.push(stripDirectives(clone(item)));
  }
  return out;
}

function stripDirectives(value: Record<string, unknown>): Record<string, unknown> {
  delete value.$patch;
  return value;
}

export function mergeMap(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  if (patch.$patch === "replace") return stripDirectives(clone(patch));
  const out = clone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch") continue;
    if (value === null) delete out[key];
    else if (isRecord(value) && value.$patch === "delete") delete out[key];
    else if (isRecord(value) && isRecord(out[key]))
      out[key] = mergeMap(out[key] as Record<string, unknown>, value);
    else if (Array.isArray(value) && Array.isArray(out[key]))
      out[key] = mergeList(key, out[key] as unknown[], value);
    else out[key] = clone(value);
  }
  return out;
}
