// --use-image-digests: find every image in the bundle manifests (image-sites.ts), resolve each
// distinct reference once (lock file first, then the registries, concurrently), and only when all
// of them resolved assign the pinned references to the image fields of a copy of the objects and
// rebuild the CSV's relatedImages (related-images.ts). All or nothing: any failure throws one error
// listing every image that failed and why, and nothing is written.
import { AggregateTsopError, InvalidInputError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import type { RegistryClientOptions } from "./client.js";
import { FAILURE_LABEL, RegistryError } from "./errors.js";
import { findImageSites, type ImageSite, type SiteProblem, tagReferencedEnvImages } from "./image-sites.js";
import { readLockFile, renderLockFile, writeLockFile } from "./lockfile.js";
import { canonicalReference, type ImageReference, parseReference, pinnedReference } from "./reference.js";
import { buildRelatedImages } from "./related-images.js";
import { MIRRORS_ENV } from "./mirrors.js";
import { resolveDigests } from "./resolve.js";

const OUT_OF_REACH = new Set<RegistryError["kind"]>(["network", "timeout"]);

/** For registries out of reach: how to read their images from a mirror that holds them. */
function mirrorHint(registries: Set<string>): string {
  if (registries.size === 0) return "";
  const [first] = [...registries].sort();
  return (
    `${[...registries].sort().join(", ")} out of reach (a disconnected machine)? Read its images from a mirror ` +
    `that holds them, as your cluster's nodes do: ${MIRRORS_ENV}=${first}=<mirror registry>/${first} ` +
    "(docs/images.md; on the test bed, export the value npm run cluster prints). Otherwise: "
  );
}

export interface PinOptions extends Omit<RegistryClientOptions, "reporter"> {
  /** The digest lock file to reuse and update (e.g. bundle/images.lock). */
  lockFile?: string;
  /** Re-resolve images even when the lock file has them. */
  refresh?: boolean;
  /** Return the lock file's new text instead of writing it (the caller writes it with its output set). */
  deferLockWrite?: boolean;
  reporter: Reporter;
}

export interface PinResult {
  objects: Array<Record<string, unknown>>;
  pinned: Array<{ from: string; to: string }>;
  /** How many distinct references came from the lock file and from registries. */
  fromLock: number;
  resolved: number;
  lockWritten: boolean;
  /** The lock file's new text (with deferLockWrite). */
  lockText?: string;
}

function failureReason(error: Error): string {
  if (error instanceof RegistryError) return `${FAILURE_LABEL[error.kind]}: ${error.message}`;
  return error.message;
}

/** Images by tag in env vars pinning cannot see (only RELATED_IMAGE_ variables are image sites). */
function warnUnpinnable(csv: Record<string, unknown>, reporter: Reporter): void {
  for (const { where, image, variable } of tagReferencedEnvImages(csv)) {
    reporter.warn(
      `${where}: ${image} is an image by tag outside a RELATED_IMAGE_ variable, so it stays unpinned; ` +
        `set it as RELATED_IMAGE_<NAME> and give ${variable} the value $(RELATED_IMAGE_<NAME>)`,
    );
  }
}

/** The lock file's new content: written here, or returned for the caller's output set. */
async function updateLock(options: PinOptions, keys: string[], digests: ReadonlyMap<string, string>) {
  if (!options.lockFile) return { lockWritten: false };
  const next = new Map<string, string>();
  for (const key of keys) next.set(key, digests.get(key)!);
  if (options.deferLockWrite) return { lockWritten: false, lockText: renderLockFile(next) };
  return { lockWritten: await writeLockFile(options.lockFile, next) };
}

export async function pinBundleImages(
  input: Array<Record<string, unknown>>,
  options: PinOptions,
): Promise<PinResult> {
  const { reporter } = options;
  const objects = structuredClone(input);
  const csvs = objects.filter((o) => o.kind === "ClusterServiceVersion");
  if (csvs.length !== 1) {
    throw new InvalidInputError(
      csvs.length === 0
        ? "no ClusterServiceVersion among the bundle manifests: nothing to pin"
        : `the bundle has ${csvs.length} ClusterServiceVersions; a bundle holds exactly one`,
      { hint: "Remove stale CSV files from the bundle's manifests/ directory." },
    );
  }

  const sites: ImageSite[] = [];
  const problems: SiteProblem[] = [];
  for (const object of objects) findImageSites(object, sites, problems);
  warnUnpinnable(csvs[0]!, reporter);

  // Parse every site; group by canonical reference.
  const failures: string[] = problems.map((p) => `${p.where}: ${p.problem}`);
  const parsed = new Map<ImageSite, ImageReference>();
  const users = new Map<string, ImageSite[]>();
  for (const site of sites) {
    try {
      const ref = parseReference(site.value);
      parsed.set(site, ref);
      if (ref.digest) continue;
      const key = canonicalReference(ref);
      users.set(key, [...(users.get(key) ?? []), site]);
    } catch (error) {
      failures.push(`${site.where}: ${(error as Error).message}`);
    }
  }

  const lock =
    options.lockFile && !options.refresh ? await readLockFile(options.lockFile) : new Map<string, string>();
  const digests = new Map<string, string>();
  let fromLock = 0;
  const toResolve: string[] = [];
  for (const key of [...users.keys()].sort()) {
    const locked = lock.get(key);
    if (locked) {
      digests.set(key, locked);
      fromLock++;
      reporter.debug(`${key}: ${locked} (from ${options.lockFile})`);
    } else toResolve.push(key);
  }

  // Registries that could not be reached at all: on a disconnected machine, a mirror is the way.
  const outOfReach = new Set<string>();
  if (toResolve.length > 0) {
    const progress = reporter.progress(`Resolving ${toResolve.length} image digest(s)`);
    const results = await resolveDigests(toResolve, { ...options, reporter });
    let failed = 0;
    for (const result of results) {
      if ("error" in result && result.error instanceof RegistryError && OUT_OF_REACH.has(result.error.kind))
        outOfReach.add(parseReference(result.reference).registry);
      if ("digest" in result) {
        digests.set(result.canonical, result.digest);
        reporter.debug(`${result.canonical}: ${result.digest}`);
        continue;
      }
      failed++;
      const where = (users.get(result.canonical) ?? []).map((s) => s.where);
      const shown = users.get(result.canonical)?.[0]?.value ?? result.reference;
      failures.push(
        `${shown}: ${failureReason(result.error)}${where.length ? `\n      used by ${where.join("; ")}` : ""}`,
      );
    }
    if (failed > 0) progress.fail(`Could not resolve ${failed} of ${toResolve.length} image(s)`);
    else progress.succeed(`Resolved ${toResolve.length} image digest(s)`);
  }

  if (failures.length > 0) {
    throw new AggregateTsopError(
      `cannot pin the bundle's images (${failures.length} problem${failures.length === 1 ? "" : "s"}); nothing was written:`,
      failures,
      {
        hint:
          mirrorHint(outOfReach) +
          "Push the missing images, fix credentials (--registry-config, podman/docker login), or add their " +
          (options.lockFile
            ? `digests to ${options.lockFile} by hand`
            : 'digests by hand to a lock file ("images: {<reference>: <digest>}") given with --images-lock <file>') +
          "; --plain-http/--ca-file/--skip-tls-verify for local registries.",
      },
    );
  }

  const pinned = new Map<string, string>();
  for (const site of sites) {
    const ref = parsed.get(site)!;
    if (ref.digest) continue;
    const digest = digests.get(canonicalReference(ref))!;
    const to = pinnedReference(ref, digest);
    site.holder[site.key] = to;
    pinned.set(site.value, to);
  }
  const csv = csvs[0]!;
  const spec = (csv.spec ?? {}) as Record<string, unknown>;
  spec.relatedImages = buildRelatedImages(sites);
  csv.spec = spec;

  const { lockWritten, lockText } = await updateLock(options, [...users.keys()], digests);
  const resolved = toResolve.length;
  reporter.info(
    `Pinned ${users.size} image reference(s) to digests` +
      (fromLock ? ` (${fromLock} from ${options.lockFile}, ${resolved} resolved)` : ""),
  );
  return {
    objects,
    pinned: [...pinned.entries()]
      .map(([from, to]) => ({ from, to }))
      .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0)),
    fromLock,
    resolved,
    lockWritten,
    ...(lockText === undefined ? {} : { lockText }),
  };
}
