// Where OLM's release manifests come from, offline first: a local directory or URL (--manifests),
// the copy shipped inside the tsop package (olm-releases/<version>, the pinned OLM_VERSION), the
// on-disk cache (one directory per version), and only for another version OLM's GitHub release
// assets (crds.yaml, olm.yaml) under a configurable base URL. "latest" is resolved through the
// releases/latest redirect, never GitHub's rate-limited API, and recorded as the concrete version.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readYamlValues } from "../common/yaml/read-values.js";
import { errorFrom, InvalidInputError, TsopError, UsageError } from "../common/errors.js";
import { readFile, stat, writeFilesAtomic } from "../common/fs.js";
import { OLM_VERSION } from "../common/pins.js";
import type { Reporter } from "../common/reporter.js";
import { download } from "../common/download.js";
import { isCrd, type KubeObject } from "../kube/objects.js";
import { messages } from "./messages.js";

export const DEFAULT_RELEASES_URL =
  "https://github.com/operator-framework/operator-lifecycle-manager/releases";
const ASSETS = ["crds.yaml", "olm.yaml"] as const;
/** Release manifests shipped in the package (src/olm and dist/olm are both two levels down). */
export const SHIPPED_RELEASES_DIR = fileURLToPath(new URL("../../olm-releases/", import.meta.url));

export interface ReleaseOptions {
  /** "v0.28.0", "0.28.0" or "latest"; undefined with --manifests means "read it from olm.yaml". */
  version?: string;
  /** Never use the network: shipped or cached manifests only (status, which only reads). */
  offline?: boolean;
  /** Directory or http(s) URL holding crds.yaml and olm.yaml, or YAML files joined by commas. */
  manifests?: string;
  /** Base of the release download URLs (default: OLM's GitHub releases; env TSOP_OLM_RELEASES_URL). */
  baseUrl?: string;
  /** Cache root (default $TSOP_CACHE_DIR or $XDG_CACHE_HOME/tsop or ~/.cache/tsop). */
  cacheDir?: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  reporter: Reporter;
}

export interface OlmRelease {
  version: string;
  crds: KubeObject[];
  resources: KubeObject[];
  origin: "directory" | "files" | "url" | "shipped" | "cache" | "download";
  /** The directory, URL or cache path the manifests were read from (files: joined by commas). */
  location: string;
}

/** "0.28.0" → "v0.28.0"; keeps "latest"; rejects anything else. */
export function normalizeVersion(version: string): string {
  const v = version.trim();
  if (v === "latest") return v;
  if (/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(v)) return v.startsWith("v") ? v : `v${v}`;
  throw errorFrom(messages.badVersion(version), UsageError);
}

export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.TSOP_CACHE_DIR) return env.TSOP_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(base, "tsop");
}

export async function loadRelease(options: ReleaseOptions): Promise<OlmRelease> {
  const reporter = options.reporter;
  if (options.manifests) {
    const release = await loadManifestsFlag(options.manifests, options);
    reporter.info(`Using OLM ${release.version} manifests from ${release.location}`);
    return release;
  }
  const baseUrl = (options.baseUrl ?? options.env.TSOP_OLM_RELEASES_URL ?? DEFAULT_RELEASES_URL).replace(
    /\/$/,
    "",
  );
  let version = normalizeVersion(options.version ?? OLM_VERSION);
  if (version === "latest") {
    if (options.offline) throw new UsageError('"latest" needs the network; pass a concrete --version');
    version = await resolveLatest(baseUrl, options.env);
    reporter.info(`Resolved OLM "latest" to ${version}`);
  }
  const shipped = join(SHIPPED_RELEASES_DIR, version);
  if (ASSETS.every((a) => existsSync(join(shipped, a)))) {
    const release = parseRelease(await readAssets(shipped), shipped, "shipped", version);
    reporter.info(`Using OLM ${version} manifests shipped with tsop`);
    return release;
  }
  const cacheDir = join(options.cacheDir ?? defaultCacheDir(options.env), "olm", version);
  if (ASSETS.every((a) => existsSync(join(cacheDir, a)))) {
    const release = parseRelease(await readAssets(cacheDir), cacheDir, "cache", version);
    reporter.info(`Using cached OLM ${version} manifests from ${cacheDir}`);
    return release;
  }
  if (options.offline) {
    throw errorFrom(messages.notAvailableOffline(version, cacheDir));
  }
  const url = `${baseUrl}/download/${version}`;
  reporter.info(`Downloading OLM ${version} manifests from ${url}`);
  const texts = await fetchAssets(url, version, options.env);
  const release = parseRelease(texts, url, "download", version);
  // Cache only what parsed; both files or neither.
  await writeFilesAtomic(ASSETS.map((a) => ({ path: join(cacheDir, a), data: texts[a] })));
  reporter.debug(`cached in ${cacheDir}`);
  return release;
}

/**
 * --manifests: an http(s) URL or a directory holding crds.yaml and olm.yaml, or YAML files (one, or
 * several joined by commas) holding the same objects under any names: CRDs are told apart by kind.
 */
async function loadManifestsFlag(flag: string, options: ReleaseOptions): Promise<OlmRelease> {
  if (/^https?:\/\//.test(flag)) {
    const location = flag.replace(/\/$/, "");
    return parseRelease(await fetchAssets(location, "", options.env), location, "url", options.version);
  }
  const paths = flag
    .split(",")
    .filter((p) => p.trim() !== "")
    .map((p) => resolve(options.cwd ?? process.cwd(), p.trim()));
  if (paths.length === 1 && (await isDirectory(paths[0]!)))
    return parseRelease(await readAssets(paths[0]!), paths[0]!, "directory", options.version);
  const objects: KubeObject[] = [];
  for (const path of paths) {
    if (await isDirectory(path)) {
      throw errorFrom(messages.manifestsMixed(path), UsageError);
    }
    objects.push(...parseDocs(await readManifestFile(path), path));
  }
  return releaseOf(
    objects.filter(isCrd),
    objects.filter((o) => !isCrd(o)),
    {
      location: paths.join(","),
      origin: "files",
      version: options.version,
      crdsWhere: paths.join(", "),
      resourcesWhere: paths.join(", "),
    },
  );
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function readManifestFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw errorFrom(
      messages.manifestFileUnreadable(path, (error as NodeJS.ErrnoException).code ?? String(error)),
      InvalidInputError,
    );
  }
}

async function resolveLatest(baseUrl: string, env: NodeJS.ProcessEnv): Promise<string> {
  const url = `${baseUrl}/latest`;
  let res: Awaited<ReturnType<typeof download>>;
  try {
    res = await download(url, { env, followRedirects: false, timeoutMs: 30_000 });
  } catch (error) {
    const m = messages.latestUnresolved(url, (error as Error).message);
    throw new TsopError(m.message, { hint: m.hint, cause: error });
  }
  const location = res.headers.location;
  const match = typeof location === "string" ? /\/tag\/([^/?#]+)\/?$/.exec(location) : null;
  if (res.statusCode < 300 || res.statusCode >= 400 || !match) {
    throw errorFrom(
      messages.latestUnresolved(url, `expected a redirect to .../tag/<version>, got ${res.statusCode}`),
    );
  }
  return normalizeVersion(decodeURIComponent(match[1]!));
}

async function fetchAssets(
  baseUrl: string,
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<Record<(typeof ASSETS)[number], string>> {
  const out: Record<string, string> = {};
  for (const asset of ASSETS) {
    const url = `${baseUrl}/${asset}`;
    let res: Awaited<ReturnType<typeof download>>;
    try {
      res = await download(url, { env });
    } catch (error) {
      const m = messages.downloadFailed(
        url,
        (error as NodeJS.ErrnoException).code ?? (error as Error).message,
      );
      throw new TsopError(m.message, { hint: m.hint, cause: error });
    }
    if (res.statusCode === 404) {
      throw errorFrom(messages.notFound404(url, version || baseUrl));
    }
    if (res.statusCode !== 200) {
      throw errorFrom(messages.downloadFailed(url, `HTTP ${res.statusCode}`));
    }
    out[asset] = res.body.toString("utf8");
  }
  return out as Record<(typeof ASSETS)[number], string>;
}

async function readAssets(dir: string): Promise<Record<(typeof ASSETS)[number], string>> {
  const out: Record<string, string> = {};
  for (const asset of ASSETS) {
    const path = join(dir, asset);
    if (!existsSync(path)) {
      throw errorFrom(messages.manifestsMissing(dir, asset), InvalidInputError);
    }
    out[asset] = await readFile(path, "utf8");
  }
  return out as Record<(typeof ASSETS)[number], string>;
}

/** The Kubernetes objects of a YAML stream; `where` names it in errors (file, document number). */
export function parseDocs(text: string, where: string): KubeObject[] {
  const objects: KubeObject[] = [];
  const values = readYamlValues(text, {
    where: (index) => `${where} (document ${index + 1})`,
    onSyntaxError: (error, index) => {
      const m = messages.badManifest(where, `document ${index + 1} is not valid YAML: ${error.message}`);
      return new InvalidInputError(m.message, { hint: m.hint });
    },
  });
  let index = -1;
  for (const doc of values) {
    index++;
    const value = doc as KubeObject | null;
    if (value === null || value === undefined) continue;
    if (typeof value !== "object" || !value.apiVersion || !value.kind || !value.metadata?.name) {
      throw errorFrom(
        messages.badManifest(
          where,
          `document ${index + 1} is not a Kubernetes object (apiVersion, kind and metadata.name are required)`,
        ),
        InvalidInputError,
      );
    }
    objects.push(value);
  }
  return objects;
}

function parseRelease(
  texts: Record<(typeof ASSETS)[number], string>,
  location: string,
  origin: OlmRelease["origin"],
  version: string | undefined,
): OlmRelease {
  const crds = parseDocs(texts["crds.yaml"], `${location}/crds.yaml`);
  const resources = parseDocs(texts["olm.yaml"], `${location}/olm.yaml`);
  const notCrd = crds.find((o) => !isCrd(o));
  if (notCrd) {
    throw errorFrom(
      messages.badManifest(
        `${location}/crds.yaml`,
        `holds a ${notCrd.kind}, not only CustomResourceDefinitions`,
      ),
      InvalidInputError,
    );
  }
  return releaseOf(crds, resources, {
    location,
    origin,
    version,
    crdsWhere: `${location}/crds.yaml`,
    resourcesWhere: `${location}/olm.yaml`,
  });
}

interface ReleaseSource {
  location: string;
  origin: OlmRelease["origin"];
  version: string | undefined;
  /** Where the CRDs and the other objects were read, for messages. */
  crdsWhere: string;
  resourcesWhere: string;
}

/** Checks that both parts are there and that the version agrees with the packageserver CSV's label. */
function releaseOf(crds: KubeObject[], resources: KubeObject[], source: ReleaseSource): OlmRelease {
  if (crds.length === 0) {
    throw errorFrom(
      messages.badManifest(source.crdsWhere, "holds no CustomResourceDefinitions"),
      InvalidInputError,
    );
  }
  if (resources.length === 0) {
    throw errorFrom(
      messages.badManifest(source.resourcesWhere, "holds no objects besides CustomResourceDefinitions"),
      InvalidInputError,
    );
  }
  const label = packageserverCsv(resources)?.metadata.labels?.["olm.version"];
  const labelled = label ? normalizeVersion(label) : undefined;
  const resolved = source.version ? normalizeVersion(source.version) : (labelled ?? "unknown");
  if (labelled && resolved !== labelled) {
    throw errorFrom(messages.versionConflict(source.resourcesWhere, labelled, resolved), InvalidInputError);
  }
  return { version: resolved, crds, resources, origin: source.origin, location: source.location };
}

export function packageserverCsv(objects: KubeObject[]): KubeObject | undefined {
  return objects.find(
    (o) =>
      o.kind === "ClusterServiceVersion" &&
      (o.metadata.name === "packageserver" || o.metadata.name?.startsWith("packageserver.")),
  );
}
