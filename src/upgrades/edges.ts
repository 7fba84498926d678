// The upgrade edges `tsop test upgrades` tries: every edge of the catalog's graph (catalog/graph.ts:
// replaces, skips, skipRange), each once even when several channels hold it, narrowed by --channel,
// --from and --to. An edge knows both bundle images, so the run can install one and upgrade to the other.
import { compare, valid } from "semver";
import { UsageError } from "../common/errors.js";
import type { PackageGraph } from "../catalog/graph.js";

export interface UpgradeEdge {
  package: string;
  from: { bundle: string; version: string; image: string };
  to: { bundle: string; version: string; image: string };
  /** The channels holding the edge, sorted. */
  channels: string[];
  /** How the catalog declares it (replaces, skips, skipRange), sorted. */
  kinds: string[];
}

export interface EdgeFilter {
  channel?: string;
  /** A bundle name (memcached-operator.v0.0.1) or its version (0.0.1). */
  from?: string;
  to?: string;
}

/** "pkg: a.v1 → a.v2", the edge's name in every message. */
export const edgeName = (e: UpgradeEdge): string => `${e.package}: ${e.from.bundle} → ${e.to.bundle}`;

const matches = (end: { bundle: string; version: string }, wanted: string | undefined) =>
  wanted === undefined || end.bundle === wanted || end.version === wanted || `v${end.version}` === wanted;

/** Every edge of every package the filter keeps, ordered by package, then from and to version. */
export function upgradeEdges(graph: readonly PackageGraph[], filter: EdgeFilter = {}): UpgradeEdge[] {
  const found = new Map<string, UpgradeEdge>();
  const channelsSeen = new Set<string>();
  for (const pkg of graph)
    for (const ch of pkg.channels) {
      channelsSeen.add(ch.blob.name);
      if (filter.channel !== undefined && ch.blob.name !== filter.channel) continue;
      for (const e of ch.edges) {
        const from = pkg.bundles.get(e.from);
        const to = pkg.bundles.get(e.to);
        // An edge from a bundle this catalog no longer holds cannot be installed (CAT-04 reports it).
        if (!from || !to || e.from === e.to) continue;
        const key = `${pkg.name}\n${e.from}\n${e.to}`;
        const edge = found.get(key) ?? {
          package: pkg.name,
          from: { bundle: e.from, version: from.rawVersion, image: from.blob.image },
          to: { bundle: e.to, version: to.rawVersion, image: to.blob.image },
          channels: [],
          kinds: [],
        };
        if (!edge.channels.includes(ch.blob.name)) edge.channels.push(ch.blob.name);
        if (!edge.kinds.includes(e.kind)) edge.kinds.push(e.kind);
        found.set(key, edge);
      }
    }
  if (filter.channel !== undefined && !channelsSeen.has(filter.channel))
    throw new UsageError(`--channel ${filter.channel}: the catalog has no such channel`, {
      hint: `channels: ${[...channelsSeen].sort().join(", ") || "(none)"}`,
    });
  const edges = [...found.values()].filter((e) => matches(e.from, filter.from) && matches(e.to, filter.to));
  for (const e of edges) {
    e.channels.sort();
    e.kinds.sort();
  }
  return edges.sort(compareEdges);
}

function compareEdges(a: UpgradeEdge, b: UpgradeEdge): number {
  return (
    a.package.localeCompare(b.package) ||
    compareVersions(a.from.version, b.from.version) ||
    compareVersions(a.to.version, b.to.version) ||
    a.from.bundle.localeCompare(b.from.bundle) ||
    a.to.bundle.localeCompare(b.to.bundle)
  );
}

function compareVersions(a: string, b: string): number {
  return valid(a) && valid(b) ? compare(a, b) : a.localeCompare(b);
}

/** The error for a filter that leaves nothing to test. */
export function noEdges(filter: EdgeFilter, all: number): UsageError {
  const given = Object.entries(filter)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `--${k} ${String(v)}`);
  return new UsageError(
    all === 0
      ? "the catalog has no upgrade edge (a single bundle per channel, or no bundles): nothing to test"
      : `no upgrade edge of the catalog matches ${given.join(" ")} (${all} edge(s) in all)`,
    {
      hint:
        all === 0
          ? "add the next bundle (tsop catalog add <image>) and render the catalog again"
          : "--from/--to take a bundle name (op.v0.0.1) or a version (0.0.1); run without them to test every edge",
    },
  );
}
