// Registry mirrors for pulls ($TSOP_REGISTRY_MIRRORS), as containers' registries.conf
// `[[registry.mirror]]` and containerd's hosts.toml give them: a read of an image under a mirrored
// prefix asks each mirror in order, then the source itself. The reference keeps its name, so a
// digest pinned through a mirror pins the source's name, as a node configured with the same mirror
// pulls it. Pushes never go to a mirror.
import { UsageError } from "../common/errors.js";
import { type ImageReference, parseReference } from "./reference.js";

export const MIRRORS_ENV = "TSOP_REGISTRY_MIRRORS";

export interface RegistryMirror {
  /** What is mirrored: a registry ("docker.io") or a repository prefix ("docker.io/nginxinc"). */
  source: string;
  /** Where: a registry with an optional path prefix ("127.0.0.1:5000/docker.io"). */
  mirror: string;
}

const HINT =
  `Set ${MIRRORS_ENV} to <source>=<mirror>[,<source>=<mirror>…], e.g. ` +
  "docker.io=registry.internal:5000/docker.io (a source is a registry or a registry/repository prefix).";

/** Checks a registry[/path] (no tag, no digest) with the reference grammar; returns it normalised. */
function registryPrefix(text: string, entry: string): string {
  const fail = (why: string): never => {
    throw new UsageError(`${MIRRORS_ENV}: "${entry}": ${why}`, { hint: HINT });
  };
  const slash = text.indexOf("/");
  const host = slash < 0 ? text : text.slice(0, slash);
  const path = slash < 0 ? "" : text.slice(slash + 1);
  if (!/[.:]/.test(host) && host !== "localhost") fail(`"${text}" does not start with a registry host`);
  if (text.includes("@") || path.includes(":"))
    fail(`"${text}" names a tag or digest; name a registry or a prefix`);
  let parsed: ImageReference;
  try {
    // A bare registry parses as a name only with a repository after it.
    parsed = parseReference(`${text}/x`);
  } catch (error) {
    return fail((error as Error).message);
  }
  const repository = path ? parsed.repository.slice(0, -"/x".length) : "";
  return repository ? `${parsed.registry}/${repository}` : parsed.registry;
}

/** Parses $TSOP_REGISTRY_MIRRORS (comma- or whitespace-separated source=mirror pairs, in order). */
export function parseMirrors(text: string | undefined): RegistryMirror[] {
  if (!text?.trim()) return [];
  const mirrors: RegistryMirror[] = [];
  for (const entry of text.split(/[,\s]+/).filter(Boolean)) {
    const eq = entry.indexOf("=");
    if (eq <= 0 || eq === entry.length - 1)
      throw new UsageError(`${MIRRORS_ENV}: "${entry}" is not <source>=<mirror>`, { hint: HINT });
    mirrors.push({
      source: registryPrefix(entry.slice(0, eq).replace(/\/+$/, ""), entry),
      mirror: registryPrefix(entry.slice(eq + 1).replace(/\/+$/, ""), entry),
    });
  }
  return mirrors;
}

/**
 * Where a pull of `registry/repository` goes, in order: each mirror whose source is the registry or
 * a prefix of the repository (the longest prefix's mirrors first), then the source.
 */
export function pullLocations(
  mirrors: readonly RegistryMirror[],
  registry: string,
  repository: string,
): Array<{ registry: string; repository: string; mirror?: string }> {
  const name = `${registry}/${repository}`;
  const matching = mirrors
    .map((m, order) => ({ ...m, order }))
    .filter((m) => name === m.source || name.startsWith(`${m.source}/`))
    .sort((a, b) => b.source.length - a.source.length || a.order - b.order);
  const locations = matching.map((m) => {
    const rest = name.slice(m.source.length + 1);
    const slash = m.mirror.indexOf("/");
    const mirrorRegistry = slash < 0 ? m.mirror : m.mirror.slice(0, slash);
    const prefix = slash < 0 ? "" : m.mirror.slice(slash + 1);
    const mirrored = [prefix, rest].filter(Boolean).join("/");
    return { registry: mirrorRegistry, repository: mirrored, mirror: `${mirrorRegistry}/${mirrored}` };
  });
  return [...locations, { registry, repository }];
}
