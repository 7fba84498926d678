// Stage 5 of `tsop bundle` (see ../index.ts): --use-image-digests pins the images by digest (the
// lock file is only rendered, written with the rest of the output set), and the CSV's createdAt is
// stamped. Nothing is written here.
import { UsageError } from "../../common/errors.js";
import { isRecord, type ManifestObject, str } from "../../manifests/index.js";
import { toYaml } from "../../common/yaml/write.js";
import type { BundleIO, ResolvedBundle } from "../types.js";

export interface Pinned {
  objects: ManifestObject[];
  /** The digest lock file and its new text, written with the rest of the output set. */
  lock?: { file: string; content: string };
}

/** --use-image-digests: resolves digests; the lock file is only rendered here, not written. */
export async function pinImages(
  plan: ResolvedBundle,
  io: BundleIO,
  objects: ManifestObject[],
): Promise<Pinned> {
  if (!plan.digests) return { objects };
  const lockFile = plan.digests.lockFile;
  const pinned = await io.pinImages(
    objects.map((o) => structuredClone(o)),
    { ...plan.digests, deferLockWrite: true, env: plan.env, reporter: io.reporter },
  );
  for (const p of pinned.pinned) io.reporter.debug(`pinned ${p.from} → ${p.to}`);
  const lock =
    lockFile && pinned.lockText !== undefined ? { lock: { file: lockFile, content: pinned.lockText } } : {};
  return { objects: pinned.objects as ManifestObject[], ...lock };
}

function withoutCreatedAt(csv: ManifestObject): string {
  const copy = structuredClone(csv);
  const annotations =
    isRecord(copy.metadata) && isRecord(copy.metadata.annotations) ? copy.metadata.annotations : {};
  delete annotations.createdAt;
  return toYaml(copy);
}

/** SOURCE_DATE_EPOCH, else the previous CSV's time when nothing else changed, else now. */
export function stampCreatedAt(
  csv: ManifestObject,
  previous: ManifestObject | undefined,
  env: NodeJS.ProcessEnv,
): void {
  const meta = csv.metadata as Record<string, unknown>;
  const annotations = (meta.annotations ?? {}) as Record<string, unknown>;
  meta.annotations = annotations;
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== "") {
    if (!/^\d+$/.test(epoch))
      throw new UsageError(`SOURCE_DATE_EPOCH="${epoch}" must be a number of seconds`);
    annotations.createdAt = new Date(Number(epoch) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    return;
  }
  const prevAt =
    previous && isRecord(previous.metadata) && isRecord(previous.metadata.annotations)
      ? str(previous.metadata.annotations.createdAt)
      : "";
  annotations.createdAt =
    previous && prevAt && withoutCreatedAt(previous) === withoutCreatedAt(csv)
      ? prevAt
      : new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}
