// The upgrade-graph checks of `tsop catalog validate`, each with a stable id (docs/catalog.md lists
// them). A finding names the package, channel and entries involved and what to change. Errors are
// graphs OLM refuses or that leave users behind; warnings are graphs that work but likely not as meant.
import { SemVer } from "semver";
import { isRecord, str } from "../manifests/index.js";
import { type CrdDraft, crdSafety } from "./crd-safety.js";
import type { BundleNode, ChannelGraph, PackageGraph } from "./graph.js";

export interface CatalogFinding {
  id: string;
  level: "error" | "warning";
  package: string;
  channel?: string;
  /** The bundles (entry names) the finding is about. */
  entries: string[];
  message: string;
  /** What to change. */
  fix: string;
}

export interface CatalogCheck {
  id: string;
  description: string;
  run(pkg: PackageGraph): CatalogFinding[];
}

type Draft = Omit<CatalogFinding, "id" | "package">;

/** A check over each channel of a package. */
function perChannel(
  id: string,
  description: string,
  fn: (ch: ChannelGraph, pkg: PackageGraph) => Draft[],
): CatalogCheck {
  return {
    id,
    description,
    run: (pkg) =>
      pkg.channels.flatMap((ch) =>
        fn(ch, pkg).map((d) => ({ id, package: pkg.name, channel: ch.blob.name, ...d })),
      ),
  };
}

const versionText = (node: BundleNode | undefined) => node?.rawVersion || "?";

const defaultChannel: CatalogCheck = {
  id: "CAT-01",
  description: "the package has an olm.package blob whose defaultChannel is one of its channels",
  run(pkg) {
    const f = (message: string, fix: string): CatalogFinding[] => [
      { id: "CAT-01", level: "error", package: pkg.name, entries: [], message, fix },
    ];
    const names = pkg.channels.map((c) => c.blob.name);
    if (!pkg.pkg)
      return f(
        `package ${pkg.name} has channels or bundles but no olm.package blob`,
        `add {schema: olm.package, name: ${pkg.name}, defaultChannel: ${names[0] ?? "<channel>"}}`,
      );
    const def = str(pkg.pkg.defaultChannel);
    if (!def)
      return f(
        `package ${pkg.name} has no defaultChannel; OLM installs from it when a Subscription names no channel`,
        `set defaultChannel to one of: ${names.join(", ") || "(no channel yet)"}`,
      );
    if (!names.includes(def))
      return f(
        `package ${pkg.name}'s defaultChannel "${def}" is not one of its channels (${names.join(", ") || "none"})`,
        `set defaultChannel to an existing channel, or add an olm.channel named ${def}`,
      );
    return [];
  },
};

const oneHead = perChannel(
  "CAT-02",
  "each channel has exactly one head (an entry no other entry replaces or skips)",
  (ch) => {
    if (ch.entries.length === 0)
      return [
        {
          level: "error",
          entries: [],
          message: "the channel has no entries",
          fix: "add the bundles of this channel, or remove the channel",
        },
      ];
    if (ch.heads.length === 1) return [];
    if (ch.heads.length === 0)
      return [
        {
          level: "error",
          entries: ch.entries.map((e) => e.name),
          message: "the channel has no head: every entry is replaced or skipped by another (a cycle)",
          fix: "remove the replaces/skips edge that points back at the newest bundle",
        },
      ];
    return [
      {
        level: "error",
        entries: ch.heads,
        message: `the channel has ${ch.heads.length} heads (${ch.heads.join(", ")}); OLM needs one newest bundle per channel`,
        fix: `make the newest of them replace (or skip) the others, e.g. add "replaces: ${ch.heads[0]}" to ${ch.heads[ch.heads.length - 1]}`,
      },
    ];
  },
);

const entriesMatchBundles: CatalogCheck = {
  id: "CAT-03",
  description: "every channel entry has an olm.bundle blob, and every olm.bundle is in a channel",
  run(pkg) {
    const out: CatalogFinding[] = [];
    const inChannels = new Set<string>();
    for (const ch of pkg.channels)
      for (const e of ch.entries) {
        inChannels.add(e.name);
        if (!pkg.bundles.has(e.name))
          out.push({
            id: "CAT-03",
            level: "error",
            package: pkg.name,
            channel: ch.blob.name,
            entries: [e.name],
            message: `entry ${e.name} has no olm.bundle blob in package ${pkg.name}`,
            fix: `add the bundle image to the template (tsop catalog add <image>), or remove the entry`,
          });
      }
    for (const name of pkg.bundles.keys())
      if (!inChannels.has(name))
        out.push({
          id: "CAT-03",
          level: "error",
          package: pkg.name,
          entries: [name],
          message: `bundle ${name} is in no channel; OLM can never install it`,
          fix: `add an entry for ${name} to a channel, or remove the bundle`,
        });
    return out;
  },
};

const edgeTargetsExist = perChannel(
  "CAT-04",
  "replaces, skips and skipRange name bundles of the channel",
  (ch) => {
    const names = new Set(ch.entries.map((e) => e.name));
    const out: Draft[] = [];
    for (const e of ch.entries) {
      if (e.replaces && !names.has(e.replaces))
        out.push({
          level: "warning",
          entries: [e.name],
          message: `${e.name} replaces ${e.replaces}, which is not in the channel; only users still running ${e.replaces} from an older catalog can take this edge`,
          fix: `if ${e.replaces} was never released in this channel, set replaces to the previous entry (${previousEntry(ch, e.name) ?? "none"})`,
        });
      for (const s of e.skips ?? [])
        if (!names.has(s))
          out.push({
            level: "warning",
            entries: [e.name],
            message: `${e.name} skips ${s}, which is not in the channel`,
            fix: `remove ${s} from skips unless it was released in this channel before`,
          });
      if (
        e.skipRange &&
        ch.ranges.get(e.skipRange) &&
        !ch.edges.some((x) => x.to === e.name && x.kind === "skipRange")
      )
        out.push({
          level: "warning",
          entries: [e.name],
          message: `${e.name}'s skipRange "${e.skipRange}" covers no bundle of the channel`,
          fix: `widen the range to the versions it should upgrade from, or drop it`,
        });
    }
    return out;
  },
);

function previousEntry(ch: ChannelGraph, name: string): string | undefined {
  const i = ch.entries.findIndex((e) => e.name === name);
  return i > 0 ? ch.entries[i - 1]!.name : undefined;
}

/** Entries from which no chain of upgrade edges reaches `head`. */
function cannotReach(ch: ChannelGraph, head: string): string[] {
  const reaches = new Set([head]);
  for (let grew = true; grew;) {
    grew = false;
    for (const e of ch.edges)
      if (reaches.has(e.to) && !reaches.has(e.from)) {
        reaches.add(e.from);
        grew = true;
      }
  }
  return [...new Set(ch.entries.map((e) => e.name))].filter((n) => !reaches.has(n));
}

/** opm's rule: entries off the head's replaces chain that nothing skips are pruned from the channel. */
function offReplacesChain(ch: ChannelGraph, head: string): string[] {
  const byName = new Map(ch.entries.map((e) => [e.name, e]));
  const chain = new Set<string>();
  for (let cur: string | undefined = head; cur && !chain.has(cur); cur = byName.get(cur)?.replaces)
    chain.add(cur);
  const skipped = new Set(ch.entries.flatMap((e) => e.skips ?? []));
  return [...byName.keys()].filter((n) => !chain.has(n) && !skipped.has(n));
}

const stranded = perChannel(
  "CAT-05",
  "no stranded version: every entry upgrades, edge by edge, to the channel head",
  (ch, pkg) => {
    if (ch.heads.length !== 1) return [];
    const head = ch.heads[0]!;
    const out: Draft[] = [];
    const unreachable = cannotReach(ch, head);
    for (const name of unreachable)
      out.push({
        level: "error",
        entries: [name, head],
        message: `users on ${name} (${versionText(pkg.bundles.get(name))}) can never reach the head ${head}: no chain of replaces/skips/skipRange leads there`,
        fix: `add "${name}" to ${head}'s skips, or give ${head} a skipRange covering ${versionText(pkg.bundles.get(name))}`,
      });
    for (const name of offReplacesChain(ch, head).filter((n) => !unreachable.includes(n)))
      out.push({
        level: "error",
        entries: [name, head],
        message: `${name} is neither on ${head}'s replaces chain nor skipped by any entry: opm refuses it as stranded and OLM drops it from the channel, so users on it are left behind`,
        fix: `make the chain pass through it (an entry "replaces: ${name}") or list it in ${head}'s skips`,
      });
    return out;
  },
);

const skipRangeSyntax = perChannel("CAT-06", "every skipRange parses as OLM parses it", (ch) =>
  ch.entries
    .filter((e) => e.skipRange && !ch.ranges.get(e.skipRange))
    .map((e) => ({
      level: "error" as const,
      entries: [e.name],
      message: `${e.name}'s skipRange "${e.skipRange}" is not a range OLM understands; OLM ignores it`,
      fix: 'write comparators separated by spaces, e.g. ">=0.1.0 <0.3.0" (no ^, ~ or hyphen ranges)',
    })),
);

const forwardOnly = perChannel(
  "CAT-07",
  "every edge leads to a newer version (replaces, skips and skipRange point at older bundles only)",
  (ch, pkg) => {
    const out: Draft[] = [];
    for (const edge of ch.edges) {
      const from = pkg.bundles.get(edge.from)?.version;
      const to = pkg.bundles.get(edge.to)?.version;
      if (!from || !to || edge.from === edge.to || from.compare(to) < 0) continue;
      out.push({
        level: "error",
        entries: [edge.to, edge.from],
        message: `${edge.to} (${to.version}) ${edge.kind === "skipRange" ? "has a skipRange covering" : edge.kind} ${edge.from} (${from.version}): users on ${from.version} would be moved to an older or equal version`,
        fix:
          edge.kind === "skipRange"
            ? `lower the upper bound of the skipRange below ${to.version}`
            : `remove ${edge.from} from ${edge.to}'s ${edge.kind}`,
      });
    }
    for (const e of ch.entries)
      if (e.replaces === e.name || (e.skips ?? []).includes(e.name))
        out.push({
          level: "error",
          entries: [e.name],
          message: `${e.name} replaces or skips itself`,
          fix: `remove ${e.name} from its own replaces/skips`,
        });
    return out;
  },
);

const replacesCycle = perChannel("CAT-08", "the replaces chain has no cycle", (ch) => {
  const byName = new Map(ch.entries.map((e) => [e.name, e]));
  const out: Draft[] = [];
  for (const head of ch.heads) {
    const seen: string[] = [];
    for (let cur: string | undefined = head; cur && byName.has(cur); cur = byName.get(cur)?.replaces) {
      if (seen.includes(cur)) {
        out.push({
          level: "error",
          entries: seen.slice(seen.indexOf(cur)),
          message: `the replaces chain loops: ${[...seen.slice(seen.indexOf(cur)), cur].join(" → ")}`,
          fix: `remove the replaces that points from an older bundle back to ${cur}`,
        });
        break;
      }
      seen.push(cur);
    }
  }
  return out;
});

function csvSpec(node: BundleNode | undefined): Record<string, unknown> | undefined {
  return node?.csv && isRecord(node.csv.spec) ? node.csv.spec : undefined;
}

function installModes(node: BundleNode | undefined): Set<string> | undefined {
  const modes = csvSpec(node)?.installModes;
  if (!Array.isArray(modes)) return undefined;
  return new Set(
    modes
      .filter((m) => isRecord(m) && m.supported === true)
      .map((m) => str((m as Record<string, unknown>).type)),
  );
}

function gvks(node: BundleNode | undefined, type: string): Set<string> {
  return new Set(
    (node?.blob.properties ?? [])
      .filter((p) => p.type === type && isRecord(p.value))
      .map((p) => {
        const v = p.value as Record<string, unknown>;
        return `${str(v.group)}/${str(v.version)}, Kind=${str(v.kind)}`;
      }),
  );
}

/** Each upgrade edge once per channel with both bundles known: what users on `from` move to. */
function perEdge(
  id: string,
  description: string,
  fn: (from: string, to: string, pkg: PackageGraph) => Draft[],
): CatalogCheck {
  return perChannel(id, description, (ch, pkg) => {
    const seen = new Set<string>();
    return ch.edges.flatMap((e) => {
      const key = `${e.from} ${e.to}`;
      if (seen.has(key) || !pkg.bundles.has(e.from) || !pkg.bundles.has(e.to)) return [];
      seen.add(key);
      return fn(e.from, e.to, pkg);
    });
  });
}

const keepsInstallModes = perEdge(
  "CAT-09",
  "an upgrade keeps every install mode the older bundle supports",
  (from, to, pkg) => {
    const before = installModes(pkg.bundles.get(from));
    const after = installModes(pkg.bundles.get(to));
    if (!before || !after) return [];
    const dropped = [...before].filter((m) => !after.has(m)).sort();
    if (dropped.length === 0) return [];
    return [
      {
        level: "error",
        entries: [to, from],
        message: `${to} drops install mode ${dropped.join(", ")} that ${from} supports: operators installed that way cannot upgrade (OLM fails the CSV for their OperatorGroup)`,
        fix: `keep ${dropped.join(", ")} supported in ${to}'s installModes, or do not let ${to} replace/skip ${from}`,
      },
    ];
  },
);

const keepsProvidedApis = perEdge(
  "CAT-10",
  "an upgrade keeps every API (CRD version) the older bundle provides",
  (from, to, pkg) => {
    const after = gvks(pkg.bundles.get(to), "olm.gvk");
    const dropped = [...gvks(pkg.bundles.get(from), "olm.gvk")].filter((g) => !after.has(g)).sort();
    if (dropped.length === 0) return [];
    return [
      {
        level: "error",
        entries: [to, from],
        message: `${to} no longer provides ${dropped.join("; ")}, which ${from} provides: users' custom resources of that version would be stranded`,
        fix: `keep serving ${dropped.join("; ")} in ${to}'s CRDs (served: true, storage may move), or convert it with a conversion webhook`,
      },
    ];
  },
);

const newRequiredApis = perEdge(
  "CAT-11",
  "an upgrade requires no API the older bundle did not",
  (from, to, pkg) => {
    const before = gvks(pkg.bundles.get(from), "olm.gvk.required");
    const added = [...gvks(pkg.bundles.get(to), "olm.gvk.required")].filter((g) => !before.has(g)).sort();
    if (added.length === 0) return [];
    return [
      {
        level: "warning",
        entries: [to, from],
        message: `${to} requires ${added.join("; ")}, which ${from} did not: the upgrade waits until some operator on the cluster provides it`,
        fix: "make sure a catalog the cluster uses provides it, or drop the requirement",
      },
    ];
  },
);

const minKube = (node: BundleNode | undefined) => str(csvSpec(node)?.minKubeVersion);
const kubeVersion = (text: string) => {
  try {
    return new SemVer(text.replace(/^v/, ""));
  } catch {
    return undefined;
  }
};

const minKubeSteps = perEdge(
  "CAT-12",
  "minKubeVersion parses and does not rise along an upgrade unannounced",
  (from, to, pkg) => {
    const before = minKube(pkg.bundles.get(from));
    const after = minKube(pkg.bundles.get(to));
    if (after && !kubeVersion(after))
      return [
        {
          level: "error",
          entries: [to],
          message: `${to}'s minKubeVersion "${after}" is not a version OLM can compare`,
          fix: 'write it as major.minor.patch, e.g. "1.28.0"',
        },
      ];
    if (!after || (before && !kubeVersion(before))) return [];
    if (before && kubeVersion(after)!.compare(kubeVersion(before)!) <= 0) return [];
    return [
      {
        level: "warning",
        entries: [to, from],
        message: `${to} needs Kubernetes ${after} (${from} needed ${before || "any version"}): on older clusters users of ${from} stay there and see the upgrade fail`,
        fix: `keep an upgrade path for older clusters (a channel without ${to}), or announce the minimum before shipping`,
      },
    ];
  },
);

const versions: CatalogCheck = {
  id: "CAT-13",
  description: "every bundle has one olm.package property with a semantic version",
  run: (pkg) =>
    [...pkg.bundles.values()]
      .filter((b) => !b.version)
      .map((b) => ({
        id: "CAT-13",
        level: "error" as const,
        package: pkg.name,
        entries: [b.blob.name],
        message: `bundle ${b.blob.name} has ${b.rawVersion ? `the version "${b.rawVersion}", not a semantic version` : "no olm.package version"}`,
        fix: "set the CSV's spec.version to a semantic version (e.g. 0.2.0) and rebuild the bundle",
      })),
};

const uniqueEntries = perChannel("CAT-14", "each bundle appears once per channel", (ch) => {
  const counts = new Map<string, number>();
  for (const e of ch.entries) counts.set(e.name, (counts.get(e.name) ?? 0) + 1);
  return [...counts]
    .filter(([, n]) => n > 1)
    .map(([name, n]) => ({
      level: "error" as const,
      entries: [name],
      message: `${name} is listed ${n} times`,
      fix: "keep one entry and merge its replaces/skips/skipRange",
    }));
});

/** One of crd-safety.ts's checks over every edge. */
const crdCheck = (id: CrdDraft["id"], description: string) =>
  perEdge(id, description, (from, to, pkg) =>
    crdSafety(from, pkg.bundles.get(from), to, pkg.bundles.get(to))
      .filter((d) => d.id === id)
      .map((d) => ({ level: d.level, entries: [to, from], message: d.message, fix: d.fix })),
  );

const keepsCrdFields = crdCheck(
  "CAT-16",
  "an upgrade removes no field from a CRD version users' objects have",
);
const keepsCrdValidation = crdCheck(
  "CAT-17",
  "an upgrade tightens no validation of a CRD version (required, enum, maximum/minimum, lengths, pattern, type)",
);
const keepsCrdVersions = crdCheck(
  "CAT-18",
  "without a conversion webhook, an upgrade keeps serving every served version and keeps the storage version's fields",
);

export const CATALOG_CHECKS: readonly CatalogCheck[] = [
  defaultChannel,
  oneHead,
  entriesMatchBundles,
  edgeTargetsExist,
  stranded,
  skipRangeSyntax,
  forwardOnly,
  replacesCycle,
  keepsInstallModes,
  keepsProvidedApis,
  newRequiredApis,
  minKubeSteps,
  versions,
  uniqueEntries,
  keepsCrdFields,
  keepsCrdValidation,
  keepsCrdVersions,
];

export function checkCatalogGraph(graph: readonly PackageGraph[]): CatalogFinding[] {
  return graph.flatMap((pkg) => CATALOG_CHECKS.flatMap((check) => check.run(pkg)));
}
