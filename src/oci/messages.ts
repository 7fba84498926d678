// User-facing text of oci/ (images and registries), in one place so tests can match the wording.
// None of these takes a credential or token: messages name registries, references, files and
// statuses only.
import { type ImageReference, familiarReference } from "./reference.js";

const TLS_HINT =
  "If the registry uses a private CA pass --ca-file <pem> (or set SSL_CERT_FILE); for a registry that " +
  "only speaks HTTP pass --plain-http=<host:port>; --skip-tls-verify disables certificate checks (insecure).";
const AUTH_HINT =
  "Log in with `podman login` or `docker login`, or pass --registry-config <auth.json>; tsop reads " +
  "$REGISTRY_AUTH_FILE, containers auth.json and ~/.docker/config.json (with credential helpers).";

export function manifestWhat(ref: ImageReference, selector?: string): string {
  if (selector && selector !== ref.tag && selector !== ref.digest) {
    return `manifest ${selector} of ${ref.registry}/${ref.repository}`;
  }
  return `image ${familiarReference(ref)}`;
}

export function connectionFailed(
  registry: string,
  origin: string,
  kind: "tls" | "network" | "timeout",
  code: string,
  detail: string,
  via?: string,
): { message: string; hint?: string } {
  const where = via ? `${origin} via proxy ${via}` : origin;
  if (code === "TSOP_DOWNGRADE")
    return {
      message: `${registry}: ${detail}`,
      hint: "Ask the registry's operator to keep redirects on HTTPS.",
    };
  if (code === "TSOP_DEADLINE") {
    return {
      message: `${registry} (${where}) is too slow: ${detail}`,
      hint: "For a slow network raise TSOP_REGISTRY_REQUEST_TIMEOUT / TSOP_REGISTRY_OPERATION_TIMEOUT (e.g. 15m).",
    };
  }
  if (kind === "tls") {
    const why = /wrong version number|packet length/i.test(detail)
      ? "the server does not speak HTTPS"
      : `certificate not trusted (${code})`;
    return { message: `TLS error talking to ${registry} (${where}): ${why}`, hint: TLS_HINT };
  }
  if (kind === "timeout") return { message: `${registry} (${where}) did not answer in time` };
  const what =
    code === "ECONNREFUSED"
      ? "connection refused"
      : code === "ENOTFOUND" || code === "EAI_AGAIN"
        ? "host name not found"
        : code === "EPROXY"
          ? detail
          : `${code}: ${detail}`;
  return {
    message: `cannot reach ${registry} (${where}): ${what}`,
    hint: "Check the registry address and your network; HTTPS_PROXY/NO_PROXY are honoured.",
  };
}

export function authFailed(registry: string, source: string | undefined): { message: string; hint: string } {
  return source
    ? {
        message: `authentication failed for ${registry}: the credentials from ${source} were rejected`,
        hint: AUTH_HINT,
      }
    : { message: `authentication required by ${registry}: no credentials found for it`, hint: AUTH_HINT };
}

export function accessDenied(
  registry: string,
  what: string,
  detail: string,
): { message: string; hint: string } {
  return {
    message: `access denied to ${what}${detail ? ` (${detail})` : ""}`,
    hint: `The account used for ${registry} lacks permission; check the repository's access settings.`,
  };
}

export const notFound = (what: string, detail: string) => `${what} not found${detail ? ` (${detail})` : ""}`;
export const unavailable = (registry: string, status: number, detail: string) =>
  `${registry} answered HTTP ${status} after retries${detail ? ` (${detail})` : ""}`;
export const unexpectedStatus = (registry: string, what: string, status: number, detail: string) =>
  `${registry} answered HTTP ${status} for ${what}${detail ? ` (${detail})` : ""}`;
export const notARegistry = (registry: string, origin: string) =>
  `${registry} (${origin}) does not serve the registry API (/v2/ answered 404)`;
export const unknownChallenge = (registry: string) =>
  `${registry} asked for authentication in a way tsop does not support (no Basic or Bearer challenge with a realm)`;
export const tokenServiceFailed = (registry: string, origin: string, status: number) =>
  `the token service of ${registry} (${origin}) answered HTTP ${status} without a token`;
export const digestMismatch = (what: string, expected: string, actual: string) =>
  `${what}: content digest ${actual} does not match the expected ${expected}; refusing it`;
export const manifestNotJson = (what: string) => `${what}: the manifest is not valid JSON`;
export const noUploadLocation = (what: string) =>
  `${what}: the registry did not say where to upload (no Location)`;
export const responseTooLarge = (registry: string, path: string, limit: number) =>
  `${registry} sent more than ${limit} bytes for ${path}; refusing it`;
export const blobTooLarge = (what: string, size: number, limit: number) =>
  `${what} is ${size} bytes, more than the limit of ${limit}`;
export const caFileUnreadable = (file: string, reason: string) =>
  `cannot read CA certificates from ${file}: ${reason}`;
export const retrying = (host: string, reason: string, attempt: number, delayMs: number) =>
  `${host}: ${reason}, retry ${attempt} in ${delayMs} ms`;
export const mirrorMissed = (mirror: string, reason: string) => `mirror ${mirror}: ${reason}`;
export const loopbackFallback = (registry: string) =>
  `${registry} is on this machine and does not speak HTTPS; using plain HTTP as docker does for local registries`;

/** The first error of a registry's JSON error body ("MANIFEST_UNKNOWN: manifest unknown"), shortened. */
export function registryErrorDetail(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as {
      errors?: Array<{ code?: string; message?: string }>;
    };
    const first = parsed.errors?.[0];
    if (!first) return "";
    const text = [first.code, first.message].filter(Boolean).join(": ");
    return text.length > 200 ? `${text.slice(0, 197)}...` : text;
  } catch {
    return "";
  }
}

/** An image given to run bundle (or bundle validate) that is not a bundle image. */
export function notABundleImage(name: string, labelPrefix: string): { message: string; hint: string } {
  return {
    message:
      `${name} is not a bundle image: it has no ${labelPrefix}* labels and no manifests/ directory ` +
      "(an operator image, perhaps, rather than its bundle)",
    hint:
      "Pass the bundle image: build and push it with `tsop bundle push <registry>/<name>-bundle:<tag>` " +
      "(after `tsop bundle --image <this image>`), then give that reference.",
  };
}
