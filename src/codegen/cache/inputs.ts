// What one analysis read from the disk, so that a later run can tell without the compiler whether
// anything the compiler would read has changed. Recorded as facts, each checked again on a later run:
//   read    — the text of a file (a hash; null when it could not be read);
//   file/dir — what an existence probe answered: module resolution probes many paths that do not
//             exist, and one appearing (src/x.ts beside src/x/index.ts, node_modules/@types/y)
//             can change what an import resolves to;
//   realpath — where a symlink led (node_modules of linked packages);
//   list    — the entries of a directory that the tsconfig's include patterns scan, so a new or
//             removed source file shows; only subdirectories and script/JSON files count, so the
//             generated YAML never invalidates anything.
// Recording only observes what the compiler's own file system calls answered; it never changes it.
import { createHash } from "node:crypto";
import { type Dirent, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";

export type FactKind = "read" | "file" | "dir" | "realpath" | "list";

/** `${kind}:${path}` → the answer (a hash, "1"/"0", a path or a listing digest; null: unreadable). */
export type Facts = Record<string, string | null>;

/** Directories no include pattern scans by default, and .git (large, never TypeScript input). */
const SKIPPED_DIRS = new Set(["node_modules", "bower_components", "jspm_packages", ".git"]);
/** Files whose appearance can change a program: scripts, declarations, JSON modules. */
const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|json)$/;
/** Beyond this many directories to list, a project is analysed every time rather than cached. */
const MAX_LISTED_DIRS = 2000;

export class InputRecorder {
  private readonly facts = new Map<string, string | null>();
  private unstableReason: string | undefined;

  /** @param ignored paths left out (the compiler's own lib files: its version is in the cache key). */
  constructor(private readonly ignored: (path: string) => boolean = () => false) {}

  /** Why these inputs cannot be cached (an input changed while it was read, too much to list…). */
  get unstable(): string | undefined {
    return this.unstableReason;
  }

  markUnstable(reason: string): void {
    this.unstableReason ??= reason;
  }

  readFile(path: string, text: string | undefined): void {
    this.add("read", path, text === undefined ? null : hashText(text));
  }

  fileExists(path: string, exists: boolean): void {
    this.add("file", path, exists ? "1" : "0");
  }

  directoryExists(path: string, exists: boolean): void {
    this.add("dir", path, exists ? "1" : "0");
  }

  realpath(path: string, target: string): void {
    this.add("realpath", path, target);
  }

  /** Lists `dir` (and, if recursive, every directory below it but the skipped ones). */
  listTree(dir: string, recursive: boolean): void {
    const queue = [dir];
    while (queue.length) {
      const current = queue.pop() as string;
      if (this.facts.has(`list:${current}`)) continue;
      if (this.listedDirs++ >= MAX_LISTED_DIRS) {
        this.markUnstable(`more than ${MAX_LISTED_DIRS} directories under the include patterns`);
        return;
      }
      const { digest, subdirs } = listing(current);
      this.add("list", current, digest);
      // Each real directory is descended once (a symlink back up the tree is listed, not followed).
      const real = realpathOrSelf(current);
      if (!recursive || this.descended.has(real)) continue;
      this.descended.add(real);
      queue.push(...subdirs.map((name) => join(current, name)));
    }
  }

  private listedDirs = 0;
  private readonly descended = new Set<string>();

  private add(kind: FactKind, path: string, value: string | null): void {
    if (this.ignored(path)) return;
    const key = `${kind}:${path}`;
    const before = this.facts.get(key);
    // The same question answered twice differently: something changed while the analysis ran.
    if (before !== undefined && before !== value) this.markUnstable(`${path} changed during the analysis`);
    this.facts.set(key, value);
  }

  toFacts(): Facts {
    return Object.fromEntries([...this.facts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

/** The first fact that no longer holds ("read:/p/api/x.ts"), or undefined when all still hold. */
export function firstChangedFact(facts: Facts): string | undefined {
  for (const [key, value] of Object.entries(facts)) {
    const colon = key.indexOf(":");
    const kind = key.slice(0, colon) as FactKind;
    const path = key.slice(colon + 1);
    if (observe(kind, path) !== value) return key;
  }
  return undefined;
}

function observe(kind: FactKind, path: string): string | null {
  switch (kind) {
    case "read": {
      const text = readTextLikeTypeScript(path);
      return text === undefined ? null : hashText(text);
    }
    case "file":
      return statSync(path, { throwIfNoEntry: false })?.isFile() ? "1" : "0";
    case "dir":
      return statSync(path, { throwIfNoEntry: false })?.isDirectory() ? "1" : "0";
    case "realpath":
      // As ts.sys.realpath answers: the path itself when it cannot be resolved.
      try {
        return path.length < 260 ? realpathSync.native(path) : realpathSync(path);
      } catch {
        return path;
      }
    case "list":
      return listing(path).digest;
    default:
      return "unknown fact";
  }
}

function hashText(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** A file's text decoded as TypeScript's ts.sys.readFile does (byte order marks, UTF-16). */
export function readTextLikeTypeScript(path: string): string | undefined {
  let buffer: Buffer;
  try {
    buffer = readFileSync(path);
  } catch {
    return undefined;
  }
  if (buffer.length >= 2 && buffer[0] === 0xfe && buffer[1] === 0xff) {
    const swapped = Buffer.from(buffer.subarray(0, buffer.length & ~1));
    swapped.swap16();
    return swapped.toString("utf16le", 2);
  }
  if (buffer.length >= 2 && buffer[0] === 0xff && buffer[1] === 0xfe) return buffer.toString("utf16le", 2);
  if (buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf)
    return buffer.toString("utf8", 3);
  return buffer.toString("utf8");
}

/** A digest of a directory's subdirectories and source files, and the subdirectories to descend. */
function listing(dir: string): { digest: string | null; subdirs: string[] } {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return { digest: null, subdirs: [] };
  }
  const names: string[] = [];
  const subdirs: string[] = [];
  for (const entry of entries) {
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(join(dir, entry.name)));
    if (isDir) {
      names.push(`${entry.name}/`);
      if (!SKIPPED_DIRS.has(entry.name)) subdirs.push(entry.name);
    } else if (SOURCE_FILE.test(entry.name)) {
      names.push(entry.name);
    }
  }
  names.sort();
  return { digest: hashText(names.join("\n")), subdirs };
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
