// Content digests: computing them and checking that what a registry sent is what was asked for.
import { createHash } from "node:crypto";
import { digestProblem } from "./reference.js";

export function sha256Digest(data: Uint8Array | string): string {
  return `sha256:${createHash("sha256").update(data).digest("hex")}`;
}

/** Digest of `data` with the algorithm of `expected` (sha256 or sha512). */
export function digestOf(data: Uint8Array, expected: string): string {
  const algorithm = expected.split(":")[0] === "sha512" ? "sha512" : "sha256";
  return `${algorithm}:${createHash(algorithm).update(data).digest("hex")}`;
}

export function isValidDigest(digest: string): boolean {
  return digestProblem(digest) === undefined;
}
