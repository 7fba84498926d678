// Predicates: which events of a watch reach the controller's handlers (controller-runtime's
// pkg/predicate, camelCased). A predicate sees the event ({ type, object, old }) and returns true
// to let it through. The builder applies withEventFilter(...) to every watch of the controller
// (for, owns, watches), the options' `predicates` to one watch. Resync updates (old === object)
// are not filtered (controller-runtime runs predicates on them too; see docs/runtime.md).
import { LabelSelectorError, labelsMatch, parseLabelSelector } from "../../common/label-selector.js";
import type { KubeObjectLike } from "../client/client.js";
import { selectorString } from "../client/client.js";
import { ConfigError } from "../connect/errors.js";

/** An event on a watched object: `old` is set on updates only. */
export interface ObjectEvent {
  type: "create" | "update" | "delete";
  object: KubeObjectLike;
  old?: KubeObjectLike;
}

export type Predicate = (event: ObjectEvent) => boolean;

interface Meta {
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function metaOf(obj: KubeObjectLike | undefined): Meta | undefined {
  return obj?.metadata as Meta | undefined;
}

/** Same keys and values; a missing map equals an empty one (as Go's maps.Equal on nil). */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a![k] === b![k]);
}

/** An update predicate: create and delete events pass; an update without `old` does not. */
function onUpdate(changed: (old: Meta, obj: Meta) => boolean): Predicate {
  return ({ type, object, old }) => {
    if (type !== "update") return true;
    if (!old) return false;
    return changed(metaOf(old) ?? {}, metaOf(object) ?? {});
  };
}

/**
 * Skips updates that did not change metadata.generation (status-only updates), as
 * controller-runtime's GenerationChangedPredicate. Creates and deletes pass.
 */
export const generationChanged: Predicate = onUpdate((old, obj) => old.generation !== obj.generation);

/** Passes updates that changed metadata.labels (LabelChangedPredicate). Creates and deletes pass. */
export const labelChanged: Predicate = onUpdate((old, obj) => !sameMap(old.labels, obj.labels));

/** Passes updates that changed metadata.annotations (AnnotationChangedPredicate). Creates and deletes pass. */
export const annotationChanged: Predicate = onUpdate(
  (old, obj) => !sameMap(old.annotations, obj.annotations),
);

/** Passes updates that changed metadata.resourceVersion (ResourceVersionChangedPredicate). */
export const resourceVersionChanged: Predicate = onUpdate(
  (old, obj) => old.resourceVersion !== obj.resourceVersion,
);

/**
 * Passes events whose object's labels match the selector: the API server's syntax
 * ("app=web,tier in (a,b),!legacy") or a map of labels that must all be equal. On an update the
 * new object is matched (LabelSelectorPredicate). An invalid selector throws a ConfigError at once.
 */
export function labelSelectorPredicate(selector: string | Record<string, string>): Predicate {
  const text = selectorString(selector) ?? "";
  let reqs;
  try {
    reqs = text.trim() === "" ? [] : parseLabelSelector(text);
  } catch (err) {
    if (err instanceof LabelSelectorError)
      throw new ConfigError(`invalid label selector "${text}": ${err.message}`, {
        hint: 'use the API server\'s syntax, e.g. "app=web,tier in (a,b),!legacy"',
      });
    throw err;
  }
  return ({ object }) => labelsMatch(metaOf(object)?.labels, reqs);
}

/** Passes an event when every predicate does (none: always). */
export function and(...predicates: Predicate[]): Predicate {
  return (event) => predicates.every((p) => p(event));
}

/** Passes an event when at least one predicate does (none: never), as controller-runtime's Or. */
export function or(...predicates: Predicate[]): Predicate {
  return (event) => predicates.some((p) => p(event));
}

/** Passes the events the predicate stops. */
export function not(predicate: Predicate): Predicate {
  return (event) => !predicate(event);
}
