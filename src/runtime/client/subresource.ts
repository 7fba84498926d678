// client.subResource(name) (controller-runtime's client.SubResource): reads and writes of an
// object's subresource: "status", "scale" (Deployments, ReplicaSets, StatefulSets, custom
// resources with a scale subresource), "eviction" of a Pod (create), "token" of a ServiceAccount
// (create), "ephemeralcontainers", "resize", … The object named is the parent; the body is the
// subresource's own type (autoscaling/v1 Scale, policy/v1 Eviction, authentication/v1 TokenRequest).
import { TsopError } from "../../common/errors.js";
import { isNotFound } from "../connect/errors.js";
import type { KindRef, ObjectKey, ResourceMapping } from "../connect/mapper.js";
import type { RequestOptions } from "../connect/rest.js";
import type { KubeObjectLike, PatchType } from "./object.js";
import { isPatch, type Patch } from "./patch.js";
import { assertStrategicMergeAllowed } from "./strategic-merge.js";
import { writeQuery, type WriteOptions } from "./write-options.js";

/** The parent object, or its kind and key. */
export type SubResourceTarget = KubeObjectLike | { kind: KindRef<KubeObjectLike>; key: ObjectKey };

export interface SubResourcePatchOptions extends WriteOptions {
  /** For a body given as is (a Patch carries its own type). Default "merge". */
  type?: PatchType;
}

/** What client.ts lends a SubResourceClient: its request path for the parent and its transport. */
export interface SubResourceTransport {
  locate(
    target: SubResourceTarget,
    sub: string,
  ): Promise<{ mapping: ResourceMapping; path: string; key: ObjectKey }>;
  call<T>(method: string, path: string, options: RequestOptions): Promise<T>;
}

export const PATCH_CONTENT: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
};

export class SubResourceClient {
  constructor(
    readonly name: string,
    private readonly transport: SubResourceTransport,
  ) {
    if (!/^[a-z]+$/.test(name))
      throw new TsopError(`"${name}" is not a subresource name`, {
        hint: 'name one as the API does, in lower case: "status", "scale", "eviction", "token"',
      });
  }

  /** The subresource (e.g. the autoscaling/v1 Scale of a Deployment); undefined when the parent does not exist. */
  async get<R = Record<string, unknown>>(
    target: SubResourceTarget,
    options: WriteOptions = {},
  ): Promise<R | undefined> {
    const { path } = await this.transport.locate(target, this.name);
    try {
      return await this.transport.call<R>("GET", path, { signal: options.signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * POSTs `body` to the subresource: a policy/v1 Eviction to "eviction" (the server answers 429
   * while a PodDisruptionBudget forbids it), an authentication/v1 TokenRequest to "token". A body
   * without metadata gets the parent's name and namespace.
   */
  async create<R = Record<string, unknown>>(
    target: SubResourceTarget,
    body: KubeObjectLike & Record<string, unknown>,
    options: WriteOptions = {},
  ): Promise<R> {
    const { path, key } = await this.transport.locate(target, this.name);
    const sent = { ...body, metadata: body.metadata ?? { name: key.name, namespace: key.namespace } };
    return this.transport.call<R>("POST", path, {
      body: sent,
      query: writeQuery(options),
      signal: options.signal,
    });
  }

  /** PUTs `body` (default: the target itself, as for "status") to the subresource. */
  async update<R = Record<string, unknown>>(
    target: SubResourceTarget,
    body?: unknown,
    options: WriteOptions = {},
  ): Promise<R> {
    const { path } = await this.transport.locate(target, this.name);
    const sent = body ?? target;
    if ("key" in (sent as object) && "kind" in (sent as object))
      throw new TsopError(`update of the ${this.name} subresource by { kind, key } needs a body`, {
        hint: `pass the ${this.name} object to write: client.subResource("${this.name}").update(target, body)`,
      });
    return this.transport.call<R>("PUT", path, {
      body: sent,
      query: writeQuery(options),
      signal: options.signal,
    });
  }

  /**
   * Patches the subresource: `patch` is a body (merge patch unless `type` says otherwise) or a Patch
   * computed from the target object, e.g. `mergeFrom(base)` for "status".
   */
  async patch<R = Record<string, unknown>>(
    target: SubResourceTarget,
    patch: Patch | unknown,
    options: SubResourcePatchOptions = {},
  ): Promise<R> {
    const { mapping, path, key } = await this.transport.locate(target, this.name);
    const { type, body } = patchBody(target, patch, options.type);
    if (type === "strategic") assertStrategicMergeAllowed(mapping, key.name);
    return this.transport.call<R>("PATCH", path, {
      body,
      contentType: PATCH_CONTENT[type],
      query: writeQuery(options),
      signal: options.signal,
    });
  }
}

/** The type and body of a patch: a Patch computes its body from the target object. */
export function patchBody(
  target: SubResourceTarget,
  patch: Patch | unknown,
  type: PatchType = "merge",
): { type: PatchType; body: unknown } {
  if (!isPatch(patch)) return { type, body: patch };
  if ("key" in target && "kind" in target)
    throw new TsopError(`a ${patch.type} patch computed from an object needs the object, not { kind, key }`, {
      hint: "call client.patch(obj, mergeFrom(base)) with the changed object",
    });
  return { type: patch.type, body: patch.data(target as KubeObjectLike) };
}
