// ConversionReview (apiextensions.k8s.io/v1) through hub and spokes: an object at a spoke version
// goes to the hub with that spoke's toHub, then out to the desired version with its fromHub. Any
// failure fails the whole review with a message naming the object, as controller-runtime does.
import { ReviewError } from "./admission.js";
import { splitApiVersion } from "../connect/mapper.js";
import type { ConversionWebhookOptions, Converter } from "../webhooks.js";

type Json = Record<string, unknown>;

export interface RegisteredConverter {
  options: ConversionWebhookOptions;
  converter: Converter<unknown>;
}

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(obj: Json): string {
  const meta = isJson(obj.metadata) ? obj.metadata : {};
  const ns = typeof meta.namespace === "string" && meta.namespace ? `${meta.namespace}/` : "";
  return `${String(obj.kind)} ${ns}${String(meta.name ?? "")}`;
}

function convertOne(obj: Json, desired: string, converters: readonly RegisteredConverter[]): Json {
  const from = splitApiVersion(String(obj.apiVersion ?? ""));
  const to = splitApiVersion(desired);
  if (from.group !== to.group)
    throw new Error(`cannot convert ${describe(obj)} from group "${from.group}" to group "${to.group}"`);
  if (from.version === to.version) return obj;
  const entry = converters.find((c) => c.options.group === from.group && c.options.kind === obj.kind);
  if (!entry) throw new Error(`no conversion is registered for ${String(obj.kind)}.${from.group}`);
  const { hub } = entry.options;
  const spoke = (version: string) => {
    const s = entry.converter.spokes[version];
    if (!s) throw new Error(`${String(obj.kind)} has no spoke for version ${version} (hub is ${hub})`);
    return s;
  };
  const hubObject = from.version === hub ? obj : (spoke(from.version).toHub(obj) as Json);
  const out = (to.version === hub ? hubObject : spoke(to.version).fromHub(hubObject)) as Json;
  // The API server requires apiVersion/kind of the desired version and the same metadata identity.
  return { ...out, apiVersion: desired, kind: obj.kind };
}

/** Answers a ConversionReview; a malformed review is a ReviewError (HTTP 400). */
export function runConversion(
  review: unknown,
  converters: readonly RegisteredConverter[],
): { body: Json; summary: { uid: string; objects: number; desired: string; failed?: string } } {
  if (!isJson(review) || review.kind !== "ConversionReview" || !isJson(review.request))
    throw new ReviewError("the body is not a ConversionReview with a request");
  const { request } = review;
  const uid = typeof request.uid === "string" ? request.uid : "";
  const desired = typeof request.desiredAPIVersion === "string" ? request.desiredAPIVersion : "";
  if (!uid || !desired) throw new ReviewError("the ConversionReview request needs uid and desiredAPIVersion");
  const objects = Array.isArray(request.objects) ? request.objects.filter(isJson) : [];
  const apiVersion = String(review.apiVersion ?? "apiextensions.k8s.io/v1");
  try {
    const convertedObjects = objects.map((o) => convertOne(structuredClone(o), desired, converters));
    return {
      body: {
        apiVersion,
        kind: "ConversionReview",
        response: { uid, convertedObjects, result: { status: "Success" } },
      },
      summary: { uid, objects: objects.length, desired },
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      body: {
        apiVersion,
        kind: "ConversionReview",
        response: { uid, convertedObjects: [], result: { status: "Failure", message } },
      },
      summary: { uid, objects: objects.length, desired, failed: message },
    };
  }
}
