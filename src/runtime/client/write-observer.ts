// What the client tells the manager's cache about each write that succeeded: the cache overlays the
// written object so the writer's next read sees it (read-your-own-writes), and remembers which
// controller made it so the watch event the write causes can be recognised as that controller's own.
import { AsyncLocalStorage } from "node:async_hooks";
import type { ObjectKey, ResourceMapping } from "../connect/mapper.js";
import type { KubeObjectLike } from "./object.js";

export interface ObservedWrite {
  mapping: ResourceMapping;
  /** The object as the server answered (after a delete: what it answered, or undefined when gone). */
  result: KubeObjectLike | undefined;
  verb: "create" | "update" | "patch" | "apply" | "delete";
  /** "status" for status writes; no other subresource's answer is the object itself. */
  subresource?: string;
  /**
   * The resourceVersion of the object the write was made from (the object sent, or the patch's
   * target): the state the writer saw. Undefined when the writer named the object by key only.
   */
  basedOn?: string;
  /** The controller whose reconcile made the write (undefined outside reconciles). */
  writer?: string;
}

export interface WriteObserver {
  /** A write is about to be sent; the function returned is called once it is answered or failed. */
  beginWrite(
    mapping: ResourceMapping,
    key: ObjectKey,
    write: { writer: string | undefined; subresource: string | undefined },
  ): () => void;
  observeWrite(write: ObservedWrite): void;
  /** Changes an object about to be created (with sharding: a child gets its owner's shard label). */
  prepareCreate?: <T extends KubeObjectLike>(obj: T) => T;
}

/** Carries the name of the controller whose reconcile is running, through every await inside it. */
const writerScope = new AsyncLocalStorage<string>();

/** Runs `fn` (a reconcile) as `controller`: its writes are attributed to that controller. */
export function runAsWriter<T>(controller: string, fn: () => T): T {
  return writerScope.run(controller, fn);
}

export function currentWriter(): string | undefined {
  return writerScope.getStore();
}
