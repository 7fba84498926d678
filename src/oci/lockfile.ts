// The digest lock file (bundle/images.lock by default): fully qualified reference → digest.
// Locked entries are used without asking the registry (offline runs, images not pushed yet);
// --refresh re-resolves them. Written sorted, only when its content changes.
import { readFile } from "node:fs/promises";
import { InvalidInputError } from "../common/errors.js";
import { parseYamlText } from "../common/yaml/read-values.js";
import { writeFileAtomic } from "../common/fs.js";
import { canonicalReference, digestProblem, parseReference } from "./reference.js";
import { stringifyYaml } from "../common/yaml/write.js";

const HEADER = [
  "# Image digests pinned by `tsop bundle --use-image-digests` (reference -> manifest digest).",
  "# Entries here are used without contacting the registry; add one by hand for an image that is",
  "# not pushed yet. `--refresh` resolves every image again.",
].join("\n");

export type DigestLock = Map<string, string>;

export async function readLockFile(path: string): Promise<DigestLock> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw new InvalidInputError(`cannot read the digest lock file ${path}: ${(error as Error).message}`);
  }
  const bad = (why: string) =>
    new InvalidInputError(`digest lock file ${path}: ${why}`, {
      location: { file: path },
      hint: "Fix the entry, or delete the file and run again with registry access to recreate it.",
    });
  let doc: unknown;
  try {
    doc = parseYamlText(text);
  } catch (error) {
    throw bad(`not valid YAML (${(error as Error).message.split("\n")[0]})`);
  }
  if (doc === null || doc === undefined) return new Map();
  const images = (doc as { images?: unknown }).images;
  if (
    typeof doc !== "object" ||
    (images !== undefined && (typeof images !== "object" || Array.isArray(images)))
  ) {
    throw bad('expected a map "images: {<reference>: <digest>}"');
  }
  const lock: DigestLock = new Map();
  for (const [reference, digest] of Object.entries((images ?? {}) as Record<string, unknown>)) {
    let canonical: string;
    try {
      const ref = parseReference(reference);
      if (ref.digest) throw new Error("it already contains a digest");
      canonical = canonicalReference(ref);
    } catch (error) {
      throw bad(`key "${reference}" is not a tag reference: ${(error as Error).message}`);
    }
    if (typeof digest !== "string" || digestProblem(digest)) {
      throw bad(
        `the digest of "${reference}" is invalid: ${typeof digest === "string" ? digestProblem(digest) : "not a string"}`,
      );
    }
    lock.set(canonical, digest);
  }
  return lock;
}

export function renderLockFile(lock: DigestLock): string {
  const images = Object.fromEntries([...lock.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${HEADER}\n${stringifyYaml({ images }, { lineWidth: 0 })}`;
}

/** Writes the lock file when its content differs; returns whether it wrote. */
export async function writeLockFile(path: string, lock: DigestLock): Promise<boolean> {
  const text = renderLockFile(lock);
  const current = await readFile(path, "utf8").catch(() => undefined);
  if (current === text) return false;
  await writeFileAtomic(path, text);
  return true;
}
