// AdmissionReview (admission.k8s.io/v1, and v1beta1 answered in kind) for one handler: a
// defaulter's changes become a base64 JSON patch; a validator's thrown error becomes a denial with
// its message, its returned strings become warnings. Pure functions over parsed JSON, no I/O.
import { createJsonPatch } from "./json-diff.js";
import {
  AdmissionDenied,
  type AdmissionOperation,
  type AdmissionRequest,
  type Defaulter,
  type Validator,
  type Warnings,
} from "../webhooks.js";

type Json = Record<string, unknown>;

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string; reason?: string; status?: string };
  patch?: string;
  patchType?: "JSONPatch";
  warnings?: string[];
}

export interface ReviewOutcome {
  /** The AdmissionReview to send back. */
  body: Json;
  /** What happened, for the log (never the object itself). */
  summary: { uid: string; operation: string; kind: string; name: string; allowed: boolean; patched: number };
}

export class ReviewError extends Error {}

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads the request out of a review body; a malformed body is a ReviewError (HTTP 400). */
export function admissionRequestOf(review: unknown): { apiVersion: string; request: Json } {
  if (!isJson(review) || review.kind !== "AdmissionReview" || !isJson(review.request))
    throw new ReviewError("the body is not an AdmissionReview with a request");
  const apiVersion = String(review.apiVersion ?? "");
  if (apiVersion !== "admission.k8s.io/v1" && apiVersion !== "admission.k8s.io/v1beta1")
    throw new ReviewError(`unsupported AdmissionReview version "${apiVersion}"`);
  if (typeof review.request.uid !== "string" || review.request.uid === "")
    throw new ReviewError("the AdmissionReview request has no uid");
  return { apiVersion, request: review.request };
}

function requestInfo(request: Json): AdmissionRequest {
  const info: AdmissionRequest = {
    uid: String(request.uid),
    operation: String(request.operation ?? "") as AdmissionOperation,
    kind: (request.kind ?? { group: "", version: "", kind: "" }) as AdmissionRequest["kind"],
    resource: (request.resource ?? { group: "", version: "", resource: "" }) as AdmissionRequest["resource"],
  };
  if (typeof request.name === "string" && request.name) info.name = request.name;
  if (typeof request.namespace === "string" && request.namespace) info.namespace = request.namespace;
  if (request.dryRun === true) info.dryRun = true;
  if (isJson(request.userInfo)) info.userInfo = request.userInfo as AdmissionRequest["userInfo"];
  return info;
}

function denial(error: unknown): Pick<AdmissionResponse, "status" | "warnings"> {
  const code = error instanceof AdmissionDenied ? error.code : 403;
  const message = error instanceof Error ? error.message : String(error);
  const warnings = error instanceof AdmissionDenied ? [...error.warnings] : [];
  return {
    status: { code, message, reason: code === 403 ? "Forbidden" : "BadRequest", status: "Failure" },
    ...(warnings.length ? { warnings } : {}),
  };
}

function finish(
  apiVersion: string,
  request: Json,
  response: AdmissionResponse,
  patched: number,
): ReviewOutcome {
  const object = (isJson(request.object) ? request.object : request.oldObject) as Json | undefined;
  const meta = isJson(object?.metadata) ? object.metadata : {};
  const name = String(request.name ?? meta.name ?? meta.generateName ?? "");
  const namespace = String(request.namespace ?? "");
  const kind = isJson(request.kind) ? String(request.kind.kind) : "";
  return {
    body: { apiVersion, kind: "AdmissionReview", response },
    summary: {
      uid: response.uid,
      operation: String(request.operation ?? ""),
      kind,
      name: namespace ? `${namespace}/${name}` : name,
      allowed: response.allowed,
      patched,
    },
  };
}

function warningsOf(result: Warnings): string[] {
  return Array.isArray(result) ? result.map(String) : [];
}

/** Runs a defaulter on a copy of the request's object and answers with the patch. */
export async function runDefaulter(handler: Defaulter<unknown>, review: unknown): Promise<ReviewOutcome> {
  const { apiVersion, request } = admissionRequestOf(review);
  const uid = String(request.uid);
  if (!isJson(request.object)) return finish(apiVersion, request, { uid, allowed: true }, 0);
  const original = request.object;
  const copy = structuredClone(original);
  try {
    await handler.default(copy, requestInfo(request));
  } catch (error) {
    return finish(apiVersion, request, { uid, allowed: false, ...denial(error) }, 0);
  }
  // Round-trip through JSON: what the handler set must be what the server receives (no undefined, no Dates).
  const patch = createJsonPatch(original, JSON.parse(JSON.stringify(copy)));
  const response: AdmissionResponse = { uid, allowed: true };
  if (patch.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = Buffer.from(JSON.stringify(patch)).toString("base64");
  }
  return finish(apiVersion, request, response, patch.length);
}

/** Runs validateCreate/Update/Delete for the request's operation and answers allowed or denied. */
export async function runValidator(handler: Validator<unknown>, review: unknown): Promise<ReviewOutcome> {
  const { apiVersion, request } = admissionRequestOf(review);
  const uid = String(request.uid);
  const info = requestInfo(request);
  let result: Warnings;
  try {
    switch (info.operation) {
      case "CREATE":
        result = await handler.validateCreate(request.object, info);
        break;
      case "UPDATE":
        result = await handler.validateUpdate(request.object, request.oldObject, info);
        break;
      case "DELETE":
        result = await handler.validateDelete(request.oldObject, info);
        break;
      default:
        result = undefined;
    }
  } catch (error) {
    return finish(apiVersion, request, { uid, allowed: false, ...denial(error) }, 0);
  }
  const warnings = warningsOf(result);
  return finish(apiVersion, request, { uid, allowed: true, ...(warnings.length ? { warnings } : {}) }, 0);
}
