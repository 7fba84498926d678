// A file-based catalog fragment (olm.package, olm.channel, olm.bundle) for one bundle, as
// `opm render` would describe it; `tsop run bundle` and catalog builds consume it.
import { asRecords, isRecord, type KubeObject, podSpecOf, str } from "../manifests/index.js";
import { stringifyYaml } from "../common/yaml.js";

export interface FbcOptions {
  packageName: string;
  channels: string[];
  defaultChannel: string | undefined;
  csv: KubeObject;
  bundleImage: string;
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
  const properties: Record<string, unknown>[] = [
    { type: "olm.package", value: { packageName: options.packageName, version: str(spec.version) } },
  ];
  const owned = isRecord(spec.customresourcedefinitions)
    ? asRecords(spec.customresourcedefinitions.owned)
    : [];
  for (const crd of owned) {
    const group = str(crd.name).split(".").slice(1).join(".");
    properties.push({ type: "olm.gvk", value: { group, kind: str(crd.kind), version: str(crd.version) } });
  }
  const images = new Map<string, string>([[options.bundleImage, ""]]);
  for (const r of asRecords(spec.relatedImages))
    if (!images.has(str(r.image))) images.set(str(r.image), str(r.name));
  const install = isRecord(spec.install) && isRecord(spec.install.spec) ? spec.install.spec : {};
  for (const d of asRecords(install.deployments)) {
    const pod = podSpecOf({ kind: "Deployment", spec: d.spec });
    for (const c of [...asRecords(pod?.containers), ...asRecords(pod?.initContainers)]) {
      if (str(c.image) && !images.has(str(c.image))) images.set(str(c.image), str(c.name));
    }
  }
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
      relatedImages: [...images].map(([image, n]) => ({ name: n, image })),
    }),
  ];
}

export function renderFbc(options: FbcOptions): string {
  return fbcDocuments(options)
    .map((doc) => `---\n${stringifyYaml(doc, { lineWidth: 0, indentSeq: false })}`)
    .join("");
}
