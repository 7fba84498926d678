// The RELATED_IMAGE_ naming rule, written once: the manager's RELATED_IMAGE_<NAME> variables name
// the CSV's relatedImages entries (<name> lower-cased, "_" → "-"), and the operator library reads
// them back by the same rule (relatedImage("my-db") → RELATED_IMAGE_MY_DB).
import { TsopError } from "./errors.js";

export const RELATED_IMAGE_PREFIX = "RELATED_IMAGE_";

export function isRelatedImageVariable(envName: string): boolean {
  return envName.startsWith(RELATED_IMAGE_PREFIX) && envName.length > RELATED_IMAGE_PREFIX.length;
}

/** RELATED_IMAGE_MY_DB → "my-db", the relatedImages entry's name. */
export function relatedImageName(envName: string): string {
  return envName.slice(RELATED_IMAGE_PREFIX.length).toLowerCase().replace(/_/g, "-");
}

/** "my-db" → RELATED_IMAGE_MY_DB, the variable the operator reads for that image. */
export function relatedImageEnvName(name: string): string {
  const suffix = name
    .trim()
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
  if (!suffix)
    throw new TsopError(`relatedImage: invalid image name "${name}"`, {
      hint: 'use a name such as "memcached"',
    });
  return `${RELATED_IMAGE_PREFIX}${suffix}`;
}
