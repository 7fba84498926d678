// The upgrade graph of a catalog, per package and channel: which bundle each entry names, its
// version and CSV (from the olm.bundle.object or olm.csv.metadata properties opm render writes), the
// upgrade edges users take (X → Y when Y replaces X, skips X, or X's version is in Y's skipRange),
// and the channel heads as opm defines them (entries no other entry replaces or skips).
import { Range, SemVer } from "semver";
import { isRecord, str } from "../manifests/index.js";
import {
  type BundleBlob,
  type Catalog,
  type ChannelBlob,
  type ChannelEntry,
  type PackageBlob,
  packageNames,
} from "./fbc.js";

export type EdgeKind = "replaces" | "skips" | "skipRange";

export interface Edge {
  from: string;
  to: string;
  kind: EdgeKind;
}

export interface BundleNode {
  blob: BundleBlob;
  /** undefined: no olm.package property or not a semantic version. */
  version: SemVer | undefined;
  rawVersion: string;
  csv: Record<string, unknown> | undefined;
}

export interface ChannelGraph {
  blob: ChannelBlob;
  entries: ChannelEntry[];
  edges: Edge[];
  heads: string[];
  /** skipRange text → parsed range, undefined when it does not parse. */
  ranges: Map<string, Range | undefined>;
}

export interface PackageGraph {
  name: string;
  pkg: PackageBlob | undefined;
  channels: ChannelGraph[];
  bundles: Map<string, BundleNode>;
}

/** One comparator as blang/semver (OLM's and opm's range parser) reads it: an operator and a version. */
const COMPARATOR =
  /^(>=|<=|>|<|==|=|!=)?v?(\d+|[xX*])(\.(\d+|[xX*])){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** A skipRange as OLM evaluates it; undefined when OLM's parser would refuse it (^, ~, hyphen ranges). */
export function parseRange(text: string): Range | undefined {
  const parts = text.split("||").map((alt) => alt.trim().split(/\s+/));
  if (parts.some((alt) => alt.length === 0 || alt.some((c) => !COMPARATOR.test(c)))) return undefined;
  try {
    // blang compares prereleases like any version: 1.1.0-rc.1 is in ">=1.0.0 <2.0.0".
    return new Range(text.replace(/==/g, "=").replace(/!=\s*(\S+)/g, "<$1 || >$1"), {
      includePrerelease: true,
    });
  } catch {
    return undefined;
  }
}

function decodeCsv(blob: BundleBlob): Record<string, unknown> | undefined {
  for (const p of blob.properties ?? []) {
    if (p.type === "olm.csv.metadata" && isRecord(p.value))
      return { kind: "ClusterServiceVersion", spec: p.value };
    if (p.type !== "olm.bundle.object" || !isRecord(p.value)) continue;
    try {
      const object = JSON.parse(Buffer.from(str(p.value.data), "base64").toString("utf8")) as unknown;
      if (isRecord(object) && object.kind === "ClusterServiceVersion") return object;
    } catch {
      // not JSON: not the CSV
    }
  }
  return undefined;
}

function bundleNode(blob: BundleBlob): BundleNode {
  const pkgProp = (blob.properties ?? []).find((p) => p.type === "olm.package");
  const rawVersion = isRecord(pkgProp?.value) ? str(pkgProp.value.version) : "";
  let version: SemVer | undefined;
  try {
    version = rawVersion ? new SemVer(rawVersion) : undefined;
  } catch {
    version = undefined;
  }
  return { blob, version, rawVersion, csv: decodeCsv(blob) };
}

function channelGraph(blob: ChannelBlob, bundles: Map<string, BundleNode>): ChannelGraph {
  const entries = Array.isArray(blob.entries) ? blob.entries : [];
  const edges: Edge[] = [];
  const ranges = new Map<string, Range | undefined>();
  const incoming = new Set<string>();
  for (const e of entries) {
    if (e.replaces) {
      edges.push({ from: e.replaces, to: e.name, kind: "replaces" });
      incoming.add(e.replaces);
    }
    for (const s of e.skips ?? []) {
      edges.push({ from: s, to: e.name, kind: "skips" });
      incoming.add(s);
    }
    if (e.skipRange) {
      const range = parseRange(e.skipRange);
      ranges.set(e.skipRange, range);
      for (const other of entries) {
        const v = bundles.get(other.name)?.version;
        if (range && v && other.name !== e.name && range.test(v))
          edges.push({ from: other.name, to: e.name, kind: "skipRange" });
      }
    }
  }
  const heads = [...new Set(entries.map((e) => e.name))].filter((n) => !incoming.has(n)).sort();
  return { blob, entries, edges, heads, ranges };
}

export function catalogGraph(catalog: Catalog): PackageGraph[] {
  return packageNames(catalog).map((name) => {
    const bundles = new Map<string, BundleNode>();
    for (const b of catalog.bundles) if (b.package === name) bundles.set(b.name, bundleNode(b));
    return {
      name,
      pkg: catalog.packages.find((p) => p.name === name),
      channels: catalog.channels
        .filter((c) => c.package === name)
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((c) => channelGraph(c, bundles)),
      bundles,
    };
  });
}
