// The upgrade graph as Mermaid, in the form `opm alpha render-graph` prints it: one subgraph per
// package, one per channel (channels by name), a node per entry and an edge per replaces, skips and
// skipRange match, deprecated bundles/channels/packages styled; paste it where Mermaid renders.
import { SemVer } from "semver";
import { isRecord, str } from "../manifests/index.js";
import type { Catalog } from "./fbc.js";
import { parseRange } from "./graph.js";

/** Go's %q for the plain names catalogs use. */
const q = (s: string) => JSON.stringify(s);

function versions(catalog: Catalog): Map<string, SemVer> {
  const out = new Map<string, SemVer>();
  for (const b of catalog.bundles) {
    if (out.has(b.name)) continue;
    const p = (b.properties ?? []).find((x) => x.type === "olm.package");
    try {
      out.set(b.name, new SemVer(isRecord(p?.value) ? str(p.value.version) : ""));
    } catch {
      // opm refuses such a catalog; the graph leaves the bundle out of skipRange matches
    }
  }
  return out;
}

function deprecations(catalog: Catalog) {
  const pkgs = new Set<string>();
  const channels = new Set<string>();
  const bundles = new Set<string>();
  for (const d of catalog.others.filter((o) => o.schema === "olm.deprecations")) {
    for (const e of Array.isArray(d.entries) ? d.entries : []) {
      const ref = isRecord(e) && isRecord(e.reference) ? e.reference : {};
      if (ref.schema === "olm.package") pkgs.add(str(d.package));
      if (ref.schema === "olm.channel") channels.add(str(ref.name));
      if (ref.schema === "olm.bundle") bundles.add(str(ref.name));
    }
  }
  return { pkgs, channels, bundles };
}

export function mermaidGraph(catalog: Catalog): string {
  const version = versions(catalog);
  const dep = deprecations(catalog);
  const byPackage = new Map<string, string[]>();
  const deprecatedChannels: string[] = [];
  let deprecatedPackage = "";
  const channels = [...catalog.channels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const c of channels) {
    const lines = byPackage.get(c.package) ?? [];
    byPackage.set(c.package, lines);
    const id = `${c.package}-${c.name}`;
    lines.push(`    %% channel ${q(c.name)}`, `    subgraph ${id}[${q(c.name)}]`);
    if (dep.pkgs.has(c.package)) deprecatedPackage = c.package;
    if (dep.channels.has(c.name)) deprecatedChannels.push(id);
    for (const e of c.entries) {
      const entryId = `${id}-${e.name}`;
      const node = `${entryId}[${q(e.name)}]`;
      lines.push(`      ${node}${dep.bundles.has(e.name) ? ":::deprecated" : ""}`);
      if (e.replaces) lines.push(`      ${id}-${e.replaces}[${q(e.replaces)}]-- replace --> ${node}`);
      for (const s of e.skips ?? []) lines.push(`      ${id}-${s}[${q(s)}]-- skip --> ${node}`);
      if (e.skipRange) {
        const range = parseRange(e.skipRange);
        for (const other of range ? c.entries : []) {
          const v = version.get(other.name) ?? new SemVer("0.0.0");
          if (range!.test(v))
            lines.push(
              `      ${id}-${other.name}[${q(other.name)}]-- "skipRange(${e.skipRange})" --> ${node}`,
            );
        }
      }
    }
    lines.push("    end");
  }
  const out = ["graph LR", "  classDef deprecated fill:#E8960F"];
  for (const pkg of [...byPackage.keys()].sort())
    out.push(`  %% package ${q(pkg)}`, `  subgraph ${q(pkg)}`, ...byPackage.get(pkg)!, "  end");
  if (deprecatedPackage) out.push(`style ${deprecatedPackage} fill:#989695`);
  for (const c of deprecatedChannels) out.push(`style ${c} fill:#DCD0FF`);
  return `${out.join("\n")}\n`;
}
