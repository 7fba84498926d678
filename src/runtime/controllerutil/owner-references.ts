// Owner references besides the controller one (controller-runtime's SetOwnerReference,
// RemoveOwnerReference, HasOwnerReference, RemoveControllerReference). A reference names its owner
// by API group, kind and name (the version may change), as controller-runtime matches them.
import { TsopError } from "../../common/errors.js";
import type { KubeObjectLike } from "../client/client.js";
import type { ObjectMeta, OwnerReference } from "../schema.js";
import { validateOwner } from "./helpers.js";

function meta(obj: KubeObjectLike): ObjectMeta {
  const o = obj as { metadata?: ObjectMeta };
  o.metadata ??= {};
  return o.metadata;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

function refersTo(ref: OwnerReference, owner: KubeObjectLike): boolean {
  return (
    groupOf(ref.apiVersion) === groupOf(owner.apiVersion ?? "") &&
    ref.kind === owner.kind &&
    ref.name === meta(owner).name
  );
}

function requireOwner(owner: KubeObjectLike, helper: string): void {
  const o = meta(owner);
  if (!owner.apiVersion || !owner.kind || !o.name || !o.uid)
    throw new TsopError(`${helper}: the owner needs apiVersion, kind, metadata.name and metadata.uid`, {
      hint: "pass the owner as read from the API server",
    });
}

/**
 * Adds (or refreshes) a plain owner reference to `owner` on `obj`: the garbage collector deletes obj
 * once all its owners are gone, but `owner` does not control it (no `controller`, no
 * `blockOwnerDeletion`). An existing reference to the same owner is replaced. Refuses the owners
 * Kubernetes would not honour (InvalidOwnerError), as setControllerReference does.
 */
export function setOwnerReference(owner: KubeObjectLike, obj: KubeObjectLike): void {
  requireOwner(owner, "setOwnerReference");
  validateOwner(owner, obj);
  const o = meta(owner);
  const ref: OwnerReference = {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: o.name!,
    uid: o.uid!,
  };
  const refs = meta(obj).ownerReferences ?? [];
  const index = refs.findIndex((r) => refersTo(r, owner));
  if (index >= 0) refs[index] = ref;
  else refs.push(ref);
  meta(obj).ownerReferences = refs;
}

/** Whether `obj` has an owner reference (controller or not) to `owner`. */
export function hasOwnerReference(owner: KubeObjectLike, obj: KubeObjectLike): boolean {
  return ((obj as { metadata?: ObjectMeta }).metadata?.ownerReferences ?? []).some((r) => refersTo(r, owner));
}

/** Removes `obj`'s owner references to `owner` (controller or not); true when there was one. */
export function removeOwnerReference(owner: KubeObjectLike, obj: KubeObjectLike): boolean {
  const refs = (obj as { metadata?: ObjectMeta }).metadata?.ownerReferences;
  if (!refs?.some((r) => refersTo(r, owner))) return false;
  meta(obj).ownerReferences = refs.filter((r) => !refersTo(r, owner));
  return true;
}

/**
 * Removes obj's controller reference when `owner` is its controller; false when it is not (no
 * controller, or another one: that reference is left alone).
 */
export function removeControllerReference(owner: KubeObjectLike, obj: KubeObjectLike): boolean {
  const refs = (obj as { metadata?: ObjectMeta }).metadata?.ownerReferences ?? [];
  const controller = refs.find((r) => r.controller);
  if (!controller || !refersTo(controller, owner)) return false;
  meta(obj).ownerReferences = refs.filter((r) => r !== controller);
  return true;
}
