// The options every write takes (controller-runtime's DryRunAll): a dry run goes through the API
// server's validation, defaulting and admission, and stores nothing.
import type { RequestOptions } from "../connect/rest.js";

export interface WriteOptions {
  /** Aborts the request (and its retries): the call rejects with RequestAbortedError. */
  signal?: AbortSignal;
  /** Ask the server to validate and admit the write without storing it (query dryRun=All). */
  dryRun?: boolean;
}

/** The query parameters a write's options add. */
export function writeQuery(options: WriteOptions): NonNullable<RequestOptions["query"]> {
  return options.dryRun ? { dryRun: "All" } : {};
}
