// Image references parsed and normalised the way container tools do (distribution/reference's
// grammar and ParseNormalizedNamed): docker.io is the default registry, single-component names on
// Docker Hub get `library/`, `index.docker.io` means docker.io, a tag defaults to `latest` only when
// no digest is given. Errors say which part of the reference is wrong.
import { InvalidInputError, UsageError } from "../common/errors.js";

export const DOCKER_HUB = "docker.io";
/** Where Docker Hub's registry API actually lives. */
export const DOCKER_HUB_API_HOST = "registry-1.docker.io";

export interface ImageReference {
  /** Registry host[:port], normalised ("docker.io" for Docker Hub). */
  registry: string;
  /** Repository path inside the registry ("library/nginx"). */
  repository: string;
  tag?: string;
  digest?: string;
  /** The name exactly as the user wrote it, without tag or digest ("nginx", "quay.io/org/op"). */
  writtenName: string;
  /** The whole input. */
  original: string;
}

export class InvalidReferenceError extends InvalidInputError {
  constructor(
    readonly reference: string,
    readonly reason: string,
  ) {
    super(`invalid image reference "${reference}": ${reason}`, {
      hint: "Use [registry[:port]/]repository[:tag][@sha256:<64 hex digits>], e.g. quay.io/org/operator:v1.2.3.",
    });
  }
}

/**
 * Checks an image reference the user gave (a flag, a config value) with distribution's grammar:
 * a usage error naming where it came from, before any registry or cluster is contacted.
 */
export function checkImageReference(reference: string, where: string): string {
  try {
    parseReference(reference);
  } catch (error) {
    if (!(error instanceof InvalidReferenceError)) throw error;
    throw new UsageError(`${where}: ${error.message}`, { ...(error.hint ? { hint: error.hint } : {}) });
  }
  return reference;
}

/** The reason an image reference is invalid, or undefined (for checks that report findings). */
export function imageReferenceProblem(reference: string): string | undefined {
  try {
    parseReference(reference);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidReferenceError) return error.reason;
    throw error;
  }
}

const alphanumeric = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]+)";
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])`;
const PATH_COMPONENT = new RegExp(`^${pathComponent}$`);
const DOMAIN = new RegExp(`^${host}(?::[0-9]+)?$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]+$/;
const HEX_64 = /^[a-f0-9]{64}$/;
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha512: 128 };
const NAME_MAX = 255;

/** Checks a digest string ("sha256:<64 hex>"); returns the reason it is invalid, or undefined. */
export function digestProblem(digest: string): string | undefined {
  if (!DIGEST.test(digest)) return `digest "${digest}" is not of the form <algorithm>:<hex>`;
  const [algorithm = "", hex = ""] = digest.split(":");
  const expected = DIGEST_HEX_LENGTH[algorithm];
  if (expected === undefined)
    return `digest algorithm "${algorithm}" is not supported (use sha256 or sha512)`;
  if (hex.length !== expected)
    return `a ${algorithm} digest has ${expected} hex digits, "${digest}" has ${hex.length}`;
  if (hex !== hex.toLowerCase()) return `digest "${digest}" must be lowercase hex`;
  return undefined;
}

/** Splits a Docker-style name into registry and remainder as docker's splitDockerDomain does. */
function splitDomain(name: string): { domain: string; remainder: string } {
  const slash = name.indexOf("/");
  const first = slash === -1 ? "" : name.slice(0, slash);
  if (slash === -1 || (!/[.:]/.test(first) && first !== "localhost" && first.toLowerCase() === first)) {
    return { domain: DOCKER_HUB, remainder: name };
  }
  return { domain: first, remainder: name.slice(slash + 1) };
}

export function parseReference(input: string): ImageReference {
  const fail = (reason: string): never => {
    throw new InvalidReferenceError(input, reason);
  };
  if (input.trim() === "") fail("the reference is empty");
  if (input !== input.trim()) fail("it has leading or trailing whitespace");
  if (HEX_64.test(input)) fail("a 64-character hexadecimal string is an image ID, not a repository name");

  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    const problem = digestProblem(digest);
    if (problem) fail(problem);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) {
      fail(
        tag === ""
          ? "the tag after ':' is empty"
          : `tag "${tag}" is invalid (letters, digits, '_', '.', '-'; at most 128; not starting with '.' or '-')`,
      );
    }
  }
  const writtenName = rest;
  if (writtenName === "") fail("the repository name is empty");
  let { domain, remainder } = splitDomain(writtenName);
  if (domain !== DOCKER_HUB && !DOMAIN.test(domain)) fail(`registry "${domain}" is not a valid host[:port]`);
  if (domain === "index.docker.io") domain = DOCKER_HUB;
  if (domain === DOCKER_HUB && !remainder.includes("/")) remainder = `library/${remainder}`;
  if (remainder !== remainder.toLowerCase()) fail("the repository name must be lowercase");
  for (const component of remainder.split("/")) {
    if (component === "") fail("the repository name has an empty path component (a doubled or trailing '/')");
    if (!PATH_COMPONENT.test(component)) {
      fail(
        `path component "${component}" is invalid (lowercase letters and digits, separated by '.', '_', '__' or '-')`,
      );
    }
  }
  if (`${domain}/${remainder}`.length > NAME_MAX) fail(`the name is longer than ${NAME_MAX} characters`);
  return {
    registry: domain,
    repository: remainder,
    ...(tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {}),
    writtenName,
    original: input,
  };
}

/** The fully qualified name without tag or digest: "docker.io/library/nginx". */
export function fullName(ref: Pick<ImageReference, "registry" | "repository">): string {
  return `${ref.registry}/${ref.repository}`;
}

/** The fully qualified reference, with `latest` only when neither tag nor digest was given. */
export function canonicalReference(ref: ImageReference): string {
  let text = fullName(ref);
  if (ref.tag !== undefined) text += `:${ref.tag}`;
  if (ref.digest !== undefined) text += `@${ref.digest}`;
  else if (ref.tag === undefined) text += ":latest";
  return text;
}

/** The short form container tools print ("nginx:latest", "quay.io/org/op:v1"). */
export function familiarReference(ref: ImageReference): string {
  let name = fullName(ref);
  if (ref.registry === DOCKER_HUB) {
    name = ref.repository.startsWith("library/") ? ref.repository.slice("library/".length) : ref.repository;
  }
  if (ref.tag !== undefined) name += `:${ref.tag}`;
  if (ref.digest !== undefined) name += `@${ref.digest}`;
  else if (ref.tag === undefined) name += ":latest";
  return name;
}

/** The name as written, pinned: "quay.io/org/op@sha256:…" (the tag is dropped as operator-sdk does). */
export function pinnedReference(ref: ImageReference, digest: string): string {
  return `${ref.writtenName}@${digest}`;
}

/** What to ask the registry for: the digest when there is one, else the tag (default latest). */
export function manifestSelector(ref: ImageReference): string {
  return ref.digest ?? ref.tag ?? "latest";
}

/** The host to talk to for a registry name (Docker Hub's API is not on docker.io). */
export function apiHost(registry: string): string {
  return registry === DOCKER_HUB ? DOCKER_HUB_API_HOST : registry;
}

/** Host part of "host:port" or "[v6]:port", lowercased, without brackets. */
export function hostnameOf(registry: string): string {
  const v6 = /^\[([^\]]+)\]/.exec(registry);
  if (v6?.[1]) return v6[1].toLowerCase();
  return (registry.split(":")[0] ?? registry).toLowerCase();
}

export function isLoopbackRegistry(registry: string): boolean {
  const h = hostnameOf(registry);
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}
