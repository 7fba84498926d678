// Failures of cluster access as the CLI reports them: the runtime's errors (one ApiError, one
// NoKindMatchError, one ConfigError, one isNotFound) plus subclasses whose messages name the server,
// object or permission with a hint saying what to do. client.ts turns the runtime's ApiError into
// these; callers catch the internal ones (NotFound, Conflict) and let the rest reach the CLI.
import { TsopError } from "../common/errors.js";
import { ApiError } from "../runtime/connect/errors.js";

export {
  ApiError,
  ConfigError as KubeConfigError,
  isAlreadyExists,
  isConflict,
  isNoMatch,
  isNotFound,
  NoKindMatchError,
  type StatusBody as ApiStatus,
} from "../runtime/connect/errors.js";

/** An API answer worded for people: the same status, reason and Status body as the ApiError it wraps. */
export class KubeApiError extends ApiError {
  constructor(cause: ApiError, message: string, hint?: string) {
    super(cause.method, cause.path, cause.status, cause.body, cause.retryAfterSeconds, {
      message,
      hint,
      cause,
    });
    this.attempts = cause.attempts;
  }

  get statusCode(): number {
    return this.status;
  }
}

export class NotFoundError extends KubeApiError {}
export class ConflictError extends KubeApiError {}
export class ForbiddenError extends KubeApiError {}
export class UnauthorizedError extends KubeApiError {}
/** The connection failed before any HTTP answer. */
export class ClusterUnreachableError extends TsopError {}
/** The kubeconfig's server answers, but not as a Kubernetes API server. */
export class NotKubernetesError extends TsopError {}
