// Failures of cluster access, each with a message that names the server, object or permission and a
// hint saying what to do. The HTTP layer turns status codes into these; callers catch the internal
// ones (NotFound, Conflict) and let the rest reach the CLI.
import { TsopError, type TsopErrorOptions } from "../common/errors.js";
import { messages } from "./messages.js";

/** The Status object the API server returns with errors. */
export interface ApiStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: Array<{ message?: string; field?: string }>;
  };
}

/** Any non-2xx answer from the API server that tsop did not handle itself. */
export class KubeApiError extends TsopError {
  readonly statusCode: number;
  readonly reason: string | undefined;
  readonly status: ApiStatus | undefined;
  constructor(
    message: string,
    statusCode: number,
    status: ApiStatus | undefined,
    options: TsopErrorOptions = {},
  ) {
    super(message, options);
    this.statusCode = statusCode;
    this.reason = status?.reason;
    this.status = status;
  }
}

export class NotFoundError extends KubeApiError {}
export class ConflictError extends KubeApiError {}
export class ForbiddenError extends KubeApiError {}
export class UnauthorizedError extends KubeApiError {}
/** The server does not serve this kind (yet): its CRD is missing or not established. */
export class NoKindMatchError extends TsopError {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(messages.noKindMatch(apiVersion, kind).message, {
      hint: messages.noKindMatch(apiVersion, kind).hint,
    });
  }
}
/** The connection failed before any HTTP answer. */
export class ClusterUnreachableError extends TsopError {}
/** Loading the kubeconfig or the credentials failed: the runtime's ConfigError. */
export { ConfigError as KubeConfigError } from "../runtime/errors.js";

export function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || error instanceof NoKindMatchError;
}
