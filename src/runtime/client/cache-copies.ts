// Copies the cache handed out of a kind whose cache transform is the user's: such a copy may lack
// fields the server has (the transform dropped them), so a full-object PUT of it would write those
// fields away. The cache marks them here; Client.update refuses them. A WeakSet: marking keeps no
// copy alive, and a copy the caller made (structuredClone) is not marked.
import { TsopError } from "../../common/errors.js";
import type { KubeObjectLike } from "./object.js";

const transformedCopies = new WeakSet<object>();

/** Marks a copy handed out by the cache of a kind with a user transform. */
export function markTransformedCopy<T extends object>(obj: T): T {
  transformedCopies.add(obj);
  return obj;
}

/** Unmarks an object that now holds the server's whole answer (a helper assigned it in place). */
export function unmarkTransformedCopy(obj: object): void {
  transformedCopies.delete(obj);
}

export function isTransformedCopy(obj: object): boolean {
  return transformedCopies.has(obj);
}

/** The error of a PUT of a transformed copy: what it would lose, and the two ways that lose nothing. */
export function transformedCopyError(obj: KubeObjectLike): TsopError {
  const m = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  const name = `${m.namespace ? `${m.namespace}/` : ""}${m.name ?? "(unnamed)"}`;
  const what = `${obj.kind ?? "object"} ${name}`;
  const fix = `send only what you changed with client.patch(obj, mergeFrom(base, { optimisticLock: true })) (base: a structuredClone taken before the change), or update a whole copy read with client.apiReader.get`;
  return new TsopError(
    `refusing to update ${what}: it was read from a cache whose transform for ${obj.apiVersion}/${obj.kind} is not the default, so a full-object update (PUT) would write away every field that transform dropped; ${fix}`,
    { hint: fix },
  );
}
