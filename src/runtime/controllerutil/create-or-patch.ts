// createOrPatch (controller-runtime's controllerutil.CreateOrPatch): createOrUpdate's contract, but
// a status that mutate changed is written too, through the status subresource, with its own patch.
// Both patches carry only what mutate changed and the resourceVersion they were computed against, so
// neither writes away another writer's fields; a conflict re-reads and runs mutate again.
import { TsopError } from "../../common/errors.js";
import type { Client, KubeObjectLike } from "../client/client.js";
import { createMergePatch, mergeFrom } from "../client/patch.js";
import { semanticEqual } from "./equality.js";
import {
  createFresh,
  type CreateOrUpdateOptions,
  type OperationResult,
  retryOnConflict,
  setControllerReference,
  settleNamespace,
} from "./helpers.js";

type WithStatus = KubeObjectLike & { status?: unknown; metadata?: { resourceVersion?: string } };

function withoutStatus<T extends KubeObjectLike>(obj: T): T {
  const { status: _status, ...rest } = obj as WithStatus;
  return rest as T;
}

/**
 * Ensures an object exists in the desired state, as createOrUpdate, and writes the status mutate
 * set: "created" (a new object; its status is what the server makes of it, as controller-runtime),
 * "updated" (spec/metadata), "updatedStatus" (both), "updatedStatusOnly", or "unchanged". The kind
 * needs a status subresource for status changes; the role needs `patch` on it and on its status.
 */
export async function createOrPatch<T extends KubeObjectLike>(
  client: Client,
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
  options: CreateOrUpdateOptions = {},
): Promise<{ operation: OperationResult; object: T }> {
  const m = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  if (!obj.apiVersion || !obj.kind || !m.name)
    throw new TsopError("createOrPatch needs apiVersion, kind and metadata.name on the object", {
      hint: "name the object to create or patch: { apiVersion, kind, metadata: { name, namespace } }",
    });
  const kind = { apiVersion: obj.apiVersion, kind: obj.kind };
  if (options.owner) await settleNamespace(client, obj);
  const key = { namespace: (obj.metadata as { namespace?: string }).namespace, name: m.name };
  // A conflict on the status patch retries the whole; the spec patch that went through still counts.
  let specPatched = false;
  return retryOnConflict(async () => {
    const live = await client.get<T>(kind, key);
    if (!live)
      return {
        operation: "created" as const,
        object: await createFresh(client, obj, mutate, options, "createOrPatch"),
      };
    const before = structuredClone(live);
    await mutate(live);
    if (options.owner) setControllerReference(options.owner, live);
    let current: T = live;
    if (!semanticEqual(withoutStatus(before), withoutStatus(live))) {
      const patched = await client.patch(
        withoutStatus(live),
        mergeFrom(withoutStatus(before), { optimisticLock: true }),
      );
      specPatched = true;
      current = { ...patched, status: (live as WithStatus).status } as T;
    }
    const statusBefore = (before as WithStatus).status;
    const statusAfter = (live as WithStatus).status;
    if (semanticEqual(statusBefore ?? {}, statusAfter ?? {}))
      return { operation: specPatched ? ("updated" as const) : ("unchanged" as const), object: current };
    // The status patch is checked against the version the spec patch (if any) produced.
    const version = (current as WithStatus).metadata?.resourceVersion;
    const body = {
      metadata: { resourceVersion: version },
      ...createMergePatch({ status: statusBefore }, { status: statusAfter ?? null }),
    };
    const object = await client.patchStatus(current, body);
    return { operation: specPatched ? ("updatedStatus" as const) : ("updatedStatusOnly" as const), object };
  });
}
