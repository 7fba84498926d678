// Error classes shared by every tsop module. Domain code throws; only src/cli/main.ts prints
// errors and turns them into exit codes. Keep this file dependency-free: the runtime imports it.

/** Documented exit codes (README "Exit codes"). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** A wait ran out of time (olm install, run bundle, cleanup). */
  timeout: 3,
  /** OLM reported the operator cannot be installed (catalog, resolution, install plan or CSV failed). */
  installFailed: 4,
  /** The user interrupted the command (SIGINT); the conventional 128 + 2. */
  interrupted: 130,
  /** Stopped by SIGTERM (rolled back like Ctrl-C); the conventional 128 + 15. */
  terminated: 143,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface SourceLocation {
  file: string;
  line?: number;
  column?: number;
}

export interface TsopErrorOptions {
  /** What the user can do about it, printed under the message. */
  hint?: string;
  location?: SourceLocation;
  exitCode?: number;
  cause?: unknown;
}

/** Base class of every expected failure. Anything else reaching main.ts is reported as a tsop bug. */
export class TsopError extends Error {
  readonly hint: string | undefined;
  readonly location: SourceLocation | undefined;
  readonly exitCode: number;

  constructor(message: string, options: TsopErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
    this.location = options.location;
    this.exitCode = options.exitCode ?? ExitCode.failure;
  }
}

/** A message and what the user can do about it, as the messages modules word them. */
export interface HintedMessage {
  message: string;
  hint?: string;
}

/** The error for a messages module's entry: `throw errorFrom(messages.x(…))`, or of another kind. */
export function errorFrom<E extends TsopError>(
  m: HintedMessage,
  Kind: new (message: string, options: { hint?: string }) => E = TsopError as never,
): E {
  return new Kind(m.message, { hint: m.hint });
}

/** Bad flags, arguments or missing values: exit 2. */
export class UsageError extends TsopError {
  constructor(message: string, options: Omit<TsopErrorOptions, "exitCode"> = {}) {
    super(message, { ...options, exitCode: ExitCode.usage });
  }
}

/** A file or object the user gave is invalid (names the file/field in the message). */
export class InvalidInputError extends TsopError {}

/** A wait that ran out of time. */
export class TimeoutError extends TsopError {
  constructor(message: string, options: Omit<TsopErrorOptions, "exitCode"> = {}) {
    super(message, { ...options, exitCode: ExitCode.timeout });
  }
}

/** Several problems found in one pass (e.g. every missing flag, every diagnostic). */
export class AggregateTsopError extends TsopError {
  readonly problems: readonly string[];
  constructor(message: string, problems: readonly string[], options: TsopErrorOptions = {}) {
    super(`${message}\n${problems.map((p) => `  - ${p}`).join("\n")}`, options);
    this.problems = problems;
  }
}

export function formatLocation(location: SourceLocation): string {
  let text = location.file;
  if (location.line !== undefined) text += `:${location.line}`;
  if (location.line !== undefined && location.column !== undefined) text += `:${location.column}`;
  return text;
}

export function isTsopError(error: unknown): error is TsopError {
  return error instanceof TsopError;
}
