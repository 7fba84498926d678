// Operand images for disconnected installs: the CSV's manager container sets RELATED_IMAGE_<NAME>
// (pinned by digest at bundle time); the operator reads it here and falls back to its default.
import { TsopError } from "../common/errors.js";

/** The environment variable read for an image name: "memcached" → RELATED_IMAGE_MEMCACHED. */
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
  return `RELATED_IMAGE_${suffix}`;
}

/**
 * The image to run for `name`: RELATED_IMAGE_<NAME> when set and non-empty, else `fallback`.
 * Throws when neither is available, naming the variable to set.
 */
export function relatedImage(name: string, fallback?: string, env: NodeJS.ProcessEnv = process.env): string {
  const variable = relatedImageEnvName(name);
  const value = env[variable]?.trim();
  if (value) return value;
  if (fallback) return fallback;
  throw new TsopError(`no image configured for "${name}": ${variable} is not set`, {
    hint: `set ${variable} in the manager's environment (the bundle's CSV does this) or pass a fallback image`,
  });
}
