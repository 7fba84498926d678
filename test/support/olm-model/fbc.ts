// File-based catalog content as the OLM model serves it: olm.package, olm.channel (entries chained
// by replaces, the only edge the catalogs tsop writes rely on; skips and skipRange are left to real
// OLM in the real tier) and olm.bundle blobs (with olm.bundle.object properties carrying manifests).
// Read from YAML/JSON streams, optionally gzip-compressed as operator-sdk's ConfigMaps carry them.
import { gunzipSync } from "node:zlib";
import { parseAllDocuments } from "yaml";

export interface FbcBundle {
  name: string;
  package: string;
  image?: string;
  version?: string;
  /** Manifests from olm.bundle.object properties (CSV, CRDs, others). */
  objects: Array<Record<string, unknown>>;
  properties: Array<{ type: string; value: unknown }>;
}

export interface FbcChannelEntry {
  name: string;
  replaces?: string;
}

export interface FbcPackage {
  name: string;
  defaultChannel?: string;
  channels: Map<string, FbcChannelEntry[]>;
}

export class Catalog {
  readonly packages = new Map<string, FbcPackage>();
  readonly bundles = new Map<string, FbcBundle>();

  static parse(texts: string[]): Catalog {
    const catalog = new Catalog();
    for (const text of texts) {
      for (const doc of parseAllDocuments(text)) {
        const blob = doc.toJS() as Record<string, unknown> | null;
        if (blob && typeof blob === "object") catalog.add(blob);
      }
    }
    return catalog;
  }

  add(blob: Record<string, unknown>): void {
    const schema = blob.schema;
    if (schema === "olm.package") {
      const pkg = this.pkg(String(blob.name));
      if (typeof blob.defaultChannel === "string") pkg.defaultChannel = blob.defaultChannel;
    } else if (schema === "olm.channel") {
      const pkg = this.pkg(String(blob.package));
      const entries = (blob.entries ?? []) as FbcChannelEntry[];
      pkg.channels.set(String(blob.name), [...(pkg.channels.get(String(blob.name)) ?? []), ...entries]);
    } else if (schema === "olm.bundle") {
      const properties = (blob.properties ?? []) as Array<{ type: string; value: unknown }>;
      const objects: Array<Record<string, unknown>> = [];
      let version: string | undefined;
      for (const p of properties) {
        if (p.type === "olm.bundle.object") {
          const data = (p.value as { data?: string })?.data;
          if (data) objects.push(JSON.parse(Buffer.from(data, "base64").toString("utf8")));
        }
        if (p.type === "olm.package") version = (p.value as { version?: string })?.version;
      }
      const bundle: FbcBundle = {
        name: String(blob.name),
        package: String(blob.package),
        objects,
        properties,
      };
      if (typeof blob.image === "string") bundle.image = blob.image;
      if (version) bundle.version = version;
      this.bundles.set(bundle.name, bundle);
      this.pkg(bundle.package);
    }
  }

  private pkg(name: string): FbcPackage {
    let pkg = this.packages.get(name);
    if (!pkg) {
      pkg = { name, channels: new Map() };
      this.packages.set(name, pkg);
    }
    return pkg;
  }

  /** The channel head: the entry no other entry replaces. */
  head(pkgName: string, channel: string): FbcChannelEntry | undefined {
    const entries = this.packages.get(pkgName)?.channels.get(channel) ?? [];
    const replaced = new Set(entries.map((e) => e.replaces ?? ""));
    return entries.filter((e) => !replaced.has(e.name)).sort((a, b) => (a.name < b.name ? 1 : -1))[0];
  }

  entry(pkgName: string, channel: string, csv: string): FbcChannelEntry | undefined {
    return this.packages
      .get(pkgName)
      ?.channels.get(channel)
      ?.find((e) => e.name === csv);
  }

  /** The next upgrade step from `csv`: the entry that replaces it. */
  replacementOf(pkgName: string, channel: string, csv: string): FbcChannelEntry | undefined {
    return this.packages
      .get(pkgName)
      ?.channels.get(channel)
      ?.find((e) => e.replaces === csv);
  }
}

/** Decodes a ConfigMap's catalog payload: binaryData.extraFBC (gzip) or YAML/JSON data keys. */
export function configMapFbc(cm: Record<string, unknown>): string[] {
  const texts: string[] = [];
  const binary = (cm.binaryData ?? {}) as Record<string, string>;
  for (const value of Object.values(binary)) {
    const bytes = Buffer.from(value, "base64");
    texts.push((bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8"));
  }
  const data = (cm.data ?? {}) as Record<string, string>;
  for (const [key, value] of Object.entries(data)) {
    if (/\.(ya?ml|json)$/.test(key) || key === "catalog") texts.push(value);
  }
  return texts;
}
