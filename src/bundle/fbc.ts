// A file-based catalog fragment (olm.package, olm.channel, olm.bundle) for one bundle, as
// `opm render` would describe it; `tsop run bundle` and catalog builds consume it.
import { isRecord, type ManifestObject, str } from "../manifests/index.js";
import { stringifyYaml } from "../common/yaml/write.js";
import { bundleProperties, bundleRelatedImages } from "./fbc-properties.js";

export interface FbcOptions {
  packageName: string;
  channels: string[];
  defaultChannel: string | undefined;
  csv: ManifestObject;
  bundleImage: string;
  /** The bundle's CRDs: each version is an olm.gvk property. */
  crds?: ManifestObject[];
  /** metadata/dependencies.yaml and metadata/properties.yaml of the bundle directory, parsed. */
  dependencies?: unknown;
  properties?: unknown;
}

function sorted<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, value[k]]),
  ) as T;
}

export function fbcDocuments(options: FbcOptions): Record<string, unknown>[] {
  const meta = isRecord(options.csv.metadata) ? options.csv.metadata : {};
  const spec = isRecord(options.csv.spec) ? options.csv.spec : {};
  const annotations = isRecord(meta.annotations) ? meta.annotations : {};
  const name = str(meta.name);
  const entry: Record<string, unknown> = { name };
  if (str(spec.replaces)) entry.replaces = str(spec.replaces);
  if (Array.isArray(spec.skips) && spec.skips.length > 0) entry.skips = spec.skips;
  if (str(annotations["olm.skipRange"])) entry.skipRange = str(annotations["olm.skipRange"]);
  const properties = bundleProperties({
    packageName: options.packageName,
    csv: options.csv,
    crds: options.crds ?? [],
    dependencies: options.dependencies,
    properties: options.properties,
  });
  const defaultChannel = options.defaultChannel ?? options.channels[0];
  return [
    sorted({
      schema: "olm.package",
      name: options.packageName,
      ...(defaultChannel ? { defaultChannel } : {}),
    }),
    ...options.channels.map((channel) =>
      sorted({
        schema: "olm.channel",
        package: options.packageName,
        name: channel,
        entries: [sorted(entry)],
      }),
    ),
    sorted({
      schema: "olm.bundle",
      name,
      package: options.packageName,
      image: options.bundleImage,
      properties,
      relatedImages: bundleRelatedImages(options.csv, options.bundleImage),
    }),
  ];
}

export function renderFbc(options: FbcOptions): string {
  return fbcDocuments(options)
    .map((doc) => `---\n${stringifyYaml(doc, { lineWidth: 0, indentSeq: false })}`)
    .join("");
}
