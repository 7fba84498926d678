// Registry failures, classified by what the user can do about them. Messages never contain
// credentials or tokens: they are built from the reference, the registry and the status only.
import { TsopError } from "../common/errors.js";

export type RegistryFailureKind =
  | "auth" // 401: no or wrong credentials
  | "denied" // 403: credentials accepted but not allowed
  | "not-found" // 404: repository, tag, manifest or blob unknown
  | "tls" // certificate problems, HTTPS to an HTTP server
  | "network" // connection refused/reset, DNS, proxy
  | "timeout"
  | "protocol" // unexpected status or body
  | "digest-mismatch"
  | "too-large"
  | "unavailable"; // 429/5xx after the retries

export const FAILURE_LABEL: Record<RegistryFailureKind, string> = {
  auth: "authentication failed",
  denied: "access denied",
  "not-found": "not found",
  tls: "TLS error",
  network: "network error",
  timeout: "timed out",
  protocol: "unexpected registry response",
  "digest-mismatch": "digest mismatch",
  "too-large": "too large",
  unavailable: "registry unavailable",
};

export class RegistryError extends TsopError {
  readonly status: number | undefined;
  constructor(
    readonly kind: RegistryFailureKind,
    message: string,
    options: { hint?: string; cause?: unknown; status?: number } = {},
  ) {
    super(message, {
      ...(options.hint ? { hint: options.hint } : {}),
      ...(options.cause !== undefined ? { cause: options.cause } : {}),
    });
    this.status = options.status;
  }
}

/**
 * A base image that cannot be read (no internet to its registry, one that wants credentials): the
 * registry's error as it was, as "cannot read <what>", its hint extended with how to pick another
 * base. Other errors (a protocol fault, a digest mismatch) pass through unchanged.
 */
export function unreadableBase(error: unknown, what: string, otherBase: string): unknown {
  if (!(error instanceof RegistryError) || error.kind === "protocol" || error.kind === "digest-mismatch")
    return error;
  return new RegistryError(error.kind, `cannot read ${what}: ${error.message}`, {
    hint: error.hint ? `${error.hint}\n${otherBase}` : otherBase,
    cause: error,
    ...(error.status === undefined ? {} : { status: error.status }),
  });
}

/** Unpacking refused an archive entry (path traversal, escaping link, device file, size limit). */
export class UnsafeArchiveError extends TsopError {
  /** The archive entry refused, when one entry was (not for a bomb or bad gzip). */
  entry?: string;
}
