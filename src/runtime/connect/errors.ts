// Errors of cluster access (the operator library's and the CLI's): ApiError carries the API server's
// Status (code, reason), with predicates for the cases callers branch on (not found, conflict, gone,
// already exists, kind not served). isNotFound means what apierrors.IsNotFound means: a 404 answer;
// a kind the server does not serve is isNoMatch (meta.IsNoMatchError), a different question.
import { TsopError, type TsopErrorOptions } from "../../common/errors.js";
import { messages, type RefusedRequest } from "./messages.js";

export interface StatusBody {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: unknown;
}

export class ApiError extends TsopError {
  readonly status: number;
  readonly reason: string;
  readonly body: StatusBody | undefined;
  readonly method: string;
  readonly path: string;
  /** Seconds from a Retry-After header (429/503), if any. */
  readonly retryAfterSeconds: number | undefined;
  /** How many times the request was sent (retries included). */
  attempts = 1;
  /** For an RBAC 403: the request the server refused (the rule to add follows from it). */
  readonly refused: RefusedRequest | undefined;

  constructor(
    method: string,
    path: string,
    status: number,
    body: StatusBody | undefined,
    retryAfter?: number,
    /** A message for people (default: method, path, status and the server's message). */
    options: TsopErrorOptions & { message?: string } = {},
  ) {
    const reason = body?.reason ?? "";
    const detail = body?.message ?? (reason || `HTTP ${status}`);
    const refused = status === 403 ? refusedByRbac(body?.message) : undefined;
    const advice = refused ? messages.rbacRuleMissing(refused) : undefined;
    super(options.message ?? `${method} ${path}: ${status} ${detail}${advice ? `; ${advice.message}` : ""}`, {
      ...options,
      hint: options.hint ?? advice?.hint,
    });
    this.refused = refused;
    this.status = status;
    this.reason = reason;
    this.body = body;
    this.method = method;
    this.path = path;
    this.retryAfterSeconds = retryAfter;
  }
}

/**
 * The refused request of kube-apiserver's Forbidden message (`… is forbidden: User "u" cannot list
 * resource "configmaps" in API group "" in the namespace "x"`), or undefined for another 403 (a
 * terminating namespace, an admission webhook).
 */
export function refusedByRbac(message: string | undefined): RefusedRequest | undefined {
  const m =
    /is forbidden: User "([^"]*)" cannot (\S+) resource "([^"]+)" in API group "([^"]*)" (?:in the namespace "([^"]*)"|at the cluster scope)/.exec(
      message ?? "",
    );
  if (!m) return undefined;
  return { user: m[1]!, verb: m[2]!, resource: m[3]!, group: m[4]!, namespace: m[5] ?? "" };
}

const statusOf = (err: unknown): number | undefined => (err instanceof ApiError ? err.status : undefined);

export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
export const isConflict = (err: unknown): boolean =>
  statusOf(err) === 409 && (err as ApiError).reason !== "AlreadyExists";
export const isAlreadyExists = (err: unknown): boolean =>
  statusOf(err) === 409 && (err as ApiError).reason === "AlreadyExists";
export const isGone = (err: unknown): boolean => statusOf(err) === 410;
export const isTooManyRequests = (err: unknown): boolean => statusOf(err) === 429;

/** The API server does not serve this kind (yet): its CRD is missing or not established. */
export class NoKindMatchError extends TsopError {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    const m = messages.noKindMatch(apiVersion, kind);
    super(m.message, { hint: m.hint });
  }
}

export const isNoMatch = (err: unknown): boolean => err instanceof NoKindMatchError;

/** Kubeconfig, credential and configuration problems. */
export class ConfigError extends TsopError {}
