// Status bodies and errors with the real apiserver's reasons, codes and message formats.
import type { KObj, ResourceDef } from "./types.js";

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

const reasons: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export function reasonFor(code: number): string {
  return reasons[code] ?? "Unknown";
}

/** An error that answers the HTTP request with a Status body. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  readonly headers: Record<string, string>;

  constructor(code: number, message: string, reason?: string, details?: StatusDetails, headers = {}) {
    super(message);
    this.code = code;
    this.reason = reason ?? reasonFor(code);
    this.details = details;
    this.headers = headers;
  }

  toStatus(): KObj {
    return statusBody(this.code, this.message, this.reason, this.details);
  }
}

export function statusBody(code: number, message: string, reason?: string, details?: StatusDetails): KObj {
  const body: KObj = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message };
  if (reason !== undefined && reason !== "") body.reason = reason;
  if (details !== undefined) body.details = details;
  body.code = code;
  return body;
}

export function successStatus(details?: StatusDetails): KObj {
  const body: KObj = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" };
  if (details) body.details = details;
  return body;
}

/** "deployments.apps" / "pods": how messages name a resource. */
export function qualifiedResource(def: Pick<ResourceDef, "resource" | "group">): string {
  return def.group === "" ? def.resource : `${def.resource}.${def.group}`;
}

/** "Deployment.apps" / "Pod": how Invalid messages name a kind. */
export function qualifiedKind(def: Pick<ResourceDef, "kind" | "group">): string {
  return def.group === "" ? def.kind : `${def.kind}.${def.group}`;
}

function resourceDetails(def: Pick<ResourceDef, "resource" | "group">, name: string): StatusDetails {
  const d: StatusDetails = name === "" ? {} : { name };
  if (def.group !== "") d.group = def.group;
  d.kind = def.resource;
  return d;
}

export function notFound(def: Pick<ResourceDef, "resource" | "group">, name: string): ApiError {
  return new ApiError(
    404,
    `${qualifiedResource(def)} "${name}" not found`,
    "NotFound",
    resourceDetails(def, name),
  );
}

export function pathNotFound(): ApiError {
  return new ApiError(404, "the server could not find the requested resource", "NotFound", {});
}

export function alreadyExists(def: Pick<ResourceDef, "resource" | "group">, name: string): ApiError {
  return new ApiError(
    409,
    `${qualifiedResource(def)} "${name}" already exists`,
    "AlreadyExists",
    resourceDetails(def, name),
  );
}

export function conflict(def: Pick<ResourceDef, "resource" | "group">, name: string, why: string): ApiError {
  return new ApiError(
    409,
    `Operation cannot be fulfilled on ${qualifiedResource(def)} "${name}": ${why}`,
    "Conflict",
    resourceDetails(def, name),
  );
}

export const modifiedMessage =
  "the object has been modified; please apply your changes to the latest version and try again";

export function badRequest(message: string): ApiError {
  return new ApiError(400, message, "BadRequest");
}

export function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    "the server does not allow this method on the requested resource",
    "MethodNotAllowed",
    {},
  );
}

export function forbidden(
  def: Pick<ResourceDef, "resource" | "group">,
  name: string,
  why: string,
  causes?: StatusCause[],
): ApiError {
  const subject = name === "" ? qualifiedResource(def) : `${qualifiedResource(def)} "${name}"`;
  const details = resourceDetails(def, name);
  if (causes) details.causes = causes;
  return new ApiError(403, `${subject} is forbidden: ${why}`, "Forbidden", details);
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(
    415,
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    "UnsupportedMediaType",
  );
}

/** One field error as the apiserver's field.Error renders it. */
export interface FieldError {
  field: string;
  /** FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, FieldValueForbidden, … */
  type: string;
  /** Full detail text after "<field>: ". */
  message: string;
}

const typeWords: Record<string, string> = {
  FieldValueRequired: "Required value",
  FieldValueForbidden: "Forbidden",
  FieldValueNotFound: "Not found",
  FieldValueDuplicate: "Duplicate value",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
};

/** Quote a value the way field.Invalid does (strings quoted, numbers bare, objects as JSON). */
export function showValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null) return '"null"';
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { field, type: "FieldValueInvalid", message: `Invalid value: ${showValue(value)}: ${detail}` };
}

export function required(field: string, detail?: string): FieldError {
  return {
    field,
    type: "FieldValueRequired",
    message: detail ? `Required value: ${detail}` : "Required value",
  };
}

export function notSupported(field: string, value: unknown, allowed: unknown[]): FieldError {
  return {
    field,
    type: "FieldValueNotSupported",
    message: `Unsupported value: ${showValue(value)}: supported values: ${allowed.map(showValue).join(", ")}`,
  };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { field, type: "FieldValueForbidden", message: `Forbidden: ${detail}` };
}

export function tooLong(field: string, max: number): FieldError {
  return { field, type: "FieldValueTooLong", message: `Too long: may not be longer than ${max}` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { field, type: "FieldValueTooMany", message: `Too many: ${actual}: must have at most ${max} items` };
}

export function genericField(field: string, type: string, detail: string): FieldError {
  return { field, type, message: `${typeWords[type] ?? "Invalid value"}: ${detail}` };
}

/** 422 Invalid: `Kind.group "name" is invalid: [field: detail, …]`. */
export function invalid(
  def: Pick<ResourceDef, "kind" | "group">,
  name: string,
  errors: FieldError[],
): ApiError {
  const parts = errors.map((e) => `${e.field}: ${e.message}`);
  const joined = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  const details: StatusDetails = name === "" ? {} : { name };
  if (def.group !== "") details.group = def.group;
  details.kind = def.kind;
  details.causes = errors.map((e) => ({ reason: e.type, message: e.message, field: e.field }));
  return new ApiError(422, `${qualifiedKind(def)} "${name}" is invalid: ${joined}`, "Invalid", details);
}
