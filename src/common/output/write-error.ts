// Turns a file system error while writing output into a TsopError that names the path and says
// what to do, so a read-only directory, a full disk or a file in the way never ends in a stack trace.
import { TsopError } from "../errors.js";

const REASONS: Record<string, { why: string; hint: (path: string) => string }> = {
  EACCES: {
    why: "permission denied",
    hint: (p) => `make ${p} writable by this user (or choose another output location)`,
  },
  EPERM: {
    why: "operation not permitted (an immutable or protected file?)",
    hint: (p) => `check the attributes and permissions of ${p} (lsattr, ls -l)`,
  },
  EROFS: {
    why: "the file system is read-only",
    hint: (p) => `${p} is on a read-only mount; choose an output location on a writable file system`,
  },
  ENOSPC: {
    why: "no space left on the device",
    hint: () => "free some disk space, then run the command again",
  },
  EDQUOT: { why: "disk quota exceeded", hint: () => "free some space within your quota, then run again" },
  ENOTDIR: {
    why: "a part of the path is a file, not a directory",
    hint: (p) => `move the file that sits where a directory of ${p} should be`,
  },
  EISDIR: { why: "a directory is in the way", hint: (p) => `move the directory ${p} away` },
  EEXIST: { why: "something is in the way", hint: (p) => `move ${p} away` },
};

export function isWriteErrno(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && code in REASONS;
}

/** A clear error for a failed write of `path`; other errors pass through unchanged. */
export function writeError(path: string, error: unknown, nothingChanged = true): unknown {
  if (error instanceof TsopError || !isWriteErrno(error)) return error;
  const reason = REASONS[error.code!]!;
  // Outside an output commit the error may come from a read as well as from a write.
  const what = nothingChanged ? `cannot write ${path}` : `cannot use ${path}`;
  const tail = nothingChanged ? "; nothing was changed" : "";
  return new TsopError(`${what}: ${reason.why} (${error.code})${tail}`, {
    hint: reason.hint(path),
    cause: error,
  });
}
