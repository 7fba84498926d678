// Errors the runtime throws: ApiError carries the API server's Status (code, reason), with
// predicates for the cases reconcilers branch on (not found, conflict, gone, already exists).
import { TsopError } from "../common/errors.js";

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

  constructor(
    method: string,
    path: string,
    status: number,
    body: StatusBody | undefined,
    retryAfter?: number,
  ) {
    const reason = body?.reason ?? "";
    const detail = body?.message ?? (reason || `HTTP ${status}`);
    super(`${method} ${path}: ${status} ${detail}`);
    this.status = status;
    this.reason = reason;
    this.body = body;
    this.method = method;
    this.path = path;
    this.retryAfterSeconds = retryAfter;
  }
}

const statusOf = (err: unknown): number | undefined => (err instanceof ApiError ? err.status : undefined);

export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
export const isConflict = (err: unknown): boolean =>
  statusOf(err) === 409 && (err as ApiError).reason !== "AlreadyExists";
export const isAlreadyExists = (err: unknown): boolean =>
  statusOf(err) === 409 && (err as ApiError).reason === "AlreadyExists";
export const isGone = (err: unknown): boolean => statusOf(err) === 410;
export const isTooManyRequests = (err: unknown): boolean => statusOf(err) === 429;

/** Kubeconfig / configuration problems found while starting the manager. */
export class ConfigError extends TsopError {}
