// Patches computed from a copy taken before a change (controller-runtime's client.MergeFrom): the
// JSON merge patch (RFC 7386) from `base` to the object as it is when the patch is sent, so a write
// carries only what the caller changed. Fields the caller never saw (dropped by a cache transform,
// added by another writer) are not in the patch and stay as they are on the server.
import type { KubeObjectLike, PatchType } from "./object.js";
import { TsopError } from "../../common/errors.js";

/** A patch whose body is computed from the object it is sent for (`client.patch(obj, patch)`). */
export interface Patch {
  readonly type: PatchType;
  /** The request body for `obj`. */
  data(obj: KubeObjectLike): unknown;
}

export interface MergeFromOptions {
  /**
   * Send base's metadata.resourceVersion with the patch, so the server refuses it (409 Conflict)
   * when the object changed since base was read. Needed whenever the patch replaces a list (a
   * merge patch replaces arrays whole): finalizers, ownerReferences, containers.
   */
  optimisticLock?: boolean;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON equality: key order ignored, undefined members count as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = (o: JsonObject) => Object.keys(o).filter((k) => o[k] !== undefined);
  const ka = keys(a);
  if (ka.length !== keys(b).length) return false;
  return ka.every((k) => k in b && jsonEqual(a[k], b[k]));
}

/** A JSON copy without undefined members (they are absent in JSON). */
function plain(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/**
 * The JSON merge patch that turns `before` into `after`: changed and added members with their new
 * value, removed members (absent, undefined or null in `after`) as null, nested objects as nested
 * patches, arrays replaced whole. `{}` when nothing changed.
 */
export function createMergePatch(before: unknown, after: unknown): Record<string, Json> {
  const from = isObject(before) ? before : {};
  const to = isObject(after) ? after : {};
  const patch: Record<string, Json> = {};
  for (const [key, value] of Object.entries(to)) {
    const old = from[key];
    if (value === undefined || value === null) {
      if (old !== undefined && old !== null) patch[key] = null;
    } else if (isObject(value) && isObject(old)) {
      const nested = createMergePatch(old, value);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (!jsonEqual(old, value)) {
      patch[key] = plain(value);
    }
  }
  for (const [key, old] of Object.entries(from)) {
    if (!(key in to) && old !== undefined && old !== null) patch[key] = null;
  }
  return patch;
}

function describe(obj: KubeObjectLike): string {
  const m = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  return `${obj.kind ?? "object"} ${m.namespace ? `${m.namespace}/` : ""}${m.name ?? "(unnamed)"}`;
}

class MergeFromPatch implements Patch {
  readonly type = "merge" as const;
  private readonly base: KubeObjectLike;

  constructor(
    base: KubeObjectLike,
    private readonly options: MergeFromOptions,
  ) {
    // A copy: the caller usually goes on to change the object base was copied from.
    this.base = structuredClone(base);
  }

  data(obj: KubeObjectLike): Record<string, Json> {
    if (!this.options.optimisticLock) return createMergePatch(this.base, obj);
    const version = (this.base.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
    if (!version)
      throw new TsopError(
        `cannot patch ${describe(obj)} with optimisticLock: its base has no resourceVersion`,
        {
          hint: "take the base from an object read from the API server (client.get), not one built by hand",
        },
      );
    // As controller-runtime: the base without a version, the object with the base's version, so
    // the version is always in the patch and the server checks it.
    return createMergePatch(withVersion(this.base, undefined), withVersion(obj, version));
  }
}

function withVersion(obj: KubeObjectLike, resourceVersion: string | undefined): KubeObjectLike {
  return { ...obj, metadata: { ...(obj.metadata ?? {}), resourceVersion } };
}

/**
 * A JSON merge patch of what changed on the object since `base` (a copy taken before changing
 * it): `client.patch(obj, mergeFrom(base))`. With `optimisticLock` the server refuses it with 409
 * Conflict when the object changed since base was read.
 */
export function mergeFrom(base: KubeObjectLike, options: MergeFromOptions = {}): Patch {
  return new MergeFromPatch(base, options);
}

/** Whether a value passed to client.patch is a Patch (a body is computed) or a body as is. */
export function isPatch(value: unknown): value is Patch {
  return (
    isObject(value) &&
    typeof value.data === "function" &&
    (value.type === "merge" || value.type === "json" || value.type === "strategic")
  );
}
