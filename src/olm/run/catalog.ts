// The file-based catalog tsop serves for a package (spec §2.5): one olm.package, one channel
// (tsop-run-bundle) whose entries chain the served bundles with `replaces`, and one olm.bundle per
// bundle carrying its manifests as olm.bundle.object properties. Serialised deterministically
// (sorted keys) and packed into gzip ConfigMap payloads that each stay below the 1 MiB limit.
import { gunzipSync, gzipSync } from "node:zlib";
import { InvalidInputError } from "../../common/errors.js";
import type { KubeObject } from "../../kube/objects.js";
import type { InstallableBundle as LoadedBundle } from "../../bundle/load/index.js";
import { RUN_CHANNEL } from "./names.js";
import { readYamlValues } from "../../common/yaml/read-values.js";
import { stringifyYaml } from "../../common/yaml/write.js";
import { bundleProperties, bundleRelatedImages } from "../../bundle/fbc-properties.js";

export type Blob = Record<string, unknown>;

export interface ChannelEntry {
  name: string;
  replaces?: string;
  skipRange?: string;
}

export interface CatalogContent {
  packageName: string;
  channel: string;
  entries: ChannelEntry[];
  /** olm.bundle blobs, in the order they were added. */
  bundles: Blob[];
}

/** Bytes of compressed catalog per ConfigMap: the object limit is 1 MiB; keep room for metadata. */
export const CONFIGMAP_PAYLOAD_LIMIT = 1024 * 1024 - 16 * 1024;

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * The olm.bundle blob for a bundle, as `opm render` produces it from the image (fbc-properties.ts),
 * plus every manifest as an olm.bundle.object property: the in-cluster catalog serves the objects,
 * so OLM needs no second unpack of the bundle image to read them.
 */
export function bundleBlob(bundle: LoadedBundle): Blob {
  const csv = bundle.csv;
  const properties: Array<{ type: string; value: unknown }> = bundleProperties({
    packageName: bundle.packageName,
    csv,
    crds: bundle.objects.filter((o) => o.kind === "CustomResourceDefinition"),
    dependencies: bundle.dependencies,
    properties: bundle.properties,
  });
  for (const obj of bundle.objects) {
    properties.push({
      type: "olm.bundle.object",
      value: { data: Buffer.from(JSON.stringify(obj)).toString("base64") },
    });
  }
  return {
    schema: "olm.bundle",
    name: csv.metadata.name,
    package: bundle.packageName,
    image: bundle.image,
    properties,
    relatedImages: bundleRelatedImages(csv, bundle.image),
  };
}

/** A catalog serving exactly one bundle (what `run bundle` starts with). */
export function singleBundleCatalog(bundle: LoadedBundle): CatalogContent {
  return {
    packageName: bundle.packageName,
    channel: RUN_CHANNEL,
    entries: [{ name: bundle.csv.metadata.name ?? "" }],
    bundles: [bundleBlob(bundle)],
  };
}

/** The channel head: the entry nothing else replaces (the newest of a replaces chain). */
export function channelHead(content: CatalogContent): ChannelEntry | undefined {
  const replaced = new Set(content.entries.map((e) => e.replaces).filter(Boolean));
  const heads = content.entries.filter((e) => !replaced.has(e.name));
  return heads.length === 1 ? heads[0] : undefined;
}

/** The catalog with `bundle` added as the new head, replacing `replaces`. */
export function withUpgrade(content: CatalogContent, bundle: LoadedBundle, replaces: string): CatalogContent {
  const name = bundle.csv.metadata.name ?? "";
  const entry: ChannelEntry = { name, replaces };
  const skipRange = bundle.csv.metadata.annotations?.["olm.skipRange"];
  if (skipRange) entry.skipRange = skipRange;
  return {
    ...content,
    entries: [...content.entries, entry],
    bundles: [...content.bundles, bundleBlob(bundle)],
  };
}

export function catalogDocuments(content: CatalogContent): Blob[] {
  const entries = content.entries.map((e) => sortKeys(e) as Blob);
  const bundles = [...content.bundles].sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return [
    { schema: "olm.package", name: content.packageName, defaultChannel: content.channel },
    { schema: "olm.channel", name: content.channel, package: content.packageName, entries },
    ...bundles,
  ].map((d) => sortKeys(d) as Blob);
}

/** YAML documents, each prefixed with `---`, keys sorted: byte-identical for the same content. */
export function serializeCatalog(content: CatalogContent): string[] {
  return catalogDocuments(content).map((doc) => `---\n${stringifyYaml(doc, { lineWidth: 0 })}`);
}

/** Reads back what serializeCatalog wrote (from the ConfigMaps of an earlier run). */
export function parseCatalog(texts: string[], packageName: string): CatalogContent {
  const content: CatalogContent = { packageName, channel: RUN_CHANNEL, entries: [], bundles: [] };
  for (const [index, text] of texts.entries()) {
    for (const value of readYamlValues(text, {
      where: `the catalog of ${packageName} (part ${index + 1})`,
    })) {
      const blob = value as Blob | null;
      if (!blob || typeof blob !== "object") continue;
      if (blob.schema === "olm.channel" && blob.package === packageName) {
        content.channel = String(blob.name);
        content.entries.push(...((blob.entries ?? []) as ChannelEntry[]));
      } else if (blob.schema === "olm.bundle" && blob.package === packageName) {
        content.bundles.push(blob);
      }
    }
  }
  return content;
}

/**
 * Packs documents into gzip payloads of at most `limit` bytes each, in order. A single document
 * that does not fit even alone is an error naming it (operator-sdk writes it and the API rejects it).
 */
export function partitionCatalog(documents: string[], limit = CONFIGMAP_PAYLOAD_LIMIT): Buffer[] {
  const payloads: Buffer[] = [];
  let current: string[] = [];
  let currentRaw = 0;
  let currentGzip: Buffer | undefined;
  const close = () => {
    if (current.length === 0) return;
    payloads.push(currentGzip ?? gzipSync(current.join("")));
    current = [];
    currentRaw = 0;
    currentGzip = undefined;
  };
  for (const doc of documents) {
    const size = Buffer.byteLength(doc);
    // Compress only when the raw text could exceed the limit: gzip never grows text much.
    if (currentRaw + size > limit - 64) {
      const candidate = gzipSync([...current, doc].join(""));
      if (candidate.length > limit) {
        close();
        const alone = gzipSync(doc);
        if (alone.length > limit) {
          const name = /\nname: (.*)\n/.exec(doc)?.[1] ?? "a catalog document";
          throw new InvalidInputError(
            `the catalog entry for ${name} is ${alone.length} bytes compressed, more than a ConfigMap can hold (${limit} bytes)`,
            {
              hint: "make the bundle smaller (e.g. shorter CRD descriptions with tsop generate --max-desc-len)",
            },
          );
        }
        current = [doc];
        currentRaw = size;
        currentGzip = alone;
        continue;
      }
      current.push(doc);
      currentRaw += size;
      currentGzip = candidate;
      continue;
    }
    current.push(doc);
    currentRaw += size;
    currentGzip = undefined;
  }
  close();
  return payloads;
}

export function unpackPayload(base64: string): string {
  return gunzipSync(Buffer.from(base64, "base64")).toString("utf8");
}

export function csvVersion(csv: KubeObject): string {
  return typeof csv.spec?.version === "string" ? csv.spec.version : "";
}
