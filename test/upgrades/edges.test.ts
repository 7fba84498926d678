// The edges `tsop test upgrades` tries, from catalog/graph.ts's graph of a rendered FBC: every
// replaces, skips and skipRange edge once (however many channels hold it), in version order, and
// --channel/--from/--to narrowing them, with clear errors for a filter that matches nothing.
import { describe, expect, it } from "vitest";
import { addBlob, type Blob, emptyCatalog } from "../../src/catalog/fbc.js";
import { catalogGraph } from "../../src/catalog/graph.js";
import { readYamlValues } from "../../src/common/yaml/read-values.js";
import { noEdges, upgradeEdges } from "../../src/upgrades/edges.js";
import { bundle, fbc } from "../catalog/graph-corpus.js";

const n = (v: string) => `widget.v${v}`;

function graphOf(
  channels: Record<string, Array<{ name: string; replaces?: string; skips?: string[]; skipRange?: string }>>,
) {
  const catalog = emptyCatalog();
  const text = fbc({
    defaultChannel: "stable",
    channels,
    bundles: ["0.1.0", "0.2.0", "0.3.0"].map((v) => bundle(v)),
  });
  for (const blob of readYamlValues(text, { where: "test" })) addBlob(catalog, blob as Blob);
  return catalogGraph(catalog);
}

const GRAPH = graphOf({
  stable: [
    { name: n("0.1.0") },
    { name: n("0.2.0"), replaces: n("0.1.0") },
    { name: n("0.3.0"), replaces: n("0.2.0"), skips: [n("0.1.0")], skipRange: ">=0.1.0 <0.3.0" },
  ],
  fast: [{ name: n("0.2.0") }, { name: n("0.3.0"), replaces: n("0.2.0") }],
});

const pairs = (edges: ReturnType<typeof upgradeEdges>) =>
  edges.map((e) => `${e.from.version}→${e.to.version}`);

describe("upgrade edges of a catalog", () => {
  it("every edge once, in version order, with its channels, kinds and both images", () => {
    const edges = upgradeEdges(GRAPH);
    expect(pairs(edges)).toEqual(["0.1.0→0.2.0", "0.1.0→0.3.0", "0.2.0→0.3.0"]);
    expect(edges[1]).toEqual({
      package: "widget",
      from: { bundle: n("0.1.0"), version: "0.1.0", image: "registry.example.com/widget-bundle:v0.1.0" },
      to: { bundle: n("0.3.0"), version: "0.3.0", image: "registry.example.com/widget-bundle:v0.3.0" },
      channels: ["stable"],
      kinds: ["skipRange", "skips"],
    });
    expect(edges[2]!.channels).toEqual(["fast", "stable"]);
    expect(edges[2]!.kinds).toEqual(["replaces", "skipRange"]);
  });

  it("--channel, --from and --to narrow the edges (by bundle name or version, v-prefixed too)", () => {
    expect(pairs(upgradeEdges(GRAPH, { channel: "fast" }))).toEqual(["0.2.0→0.3.0"]);
    expect(pairs(upgradeEdges(GRAPH, { from: "0.1.0" }))).toEqual(["0.1.0→0.2.0", "0.1.0→0.3.0"]);
    expect(pairs(upgradeEdges(GRAPH, { to: "0.2.0" }))).toEqual(["0.1.0→0.2.0"]);
    expect(pairs(upgradeEdges(GRAPH, { to: n("0.3.0"), from: "v0.2.0" }))).toEqual(["0.2.0→0.3.0"]);
  });

  it("an unknown channel, and a filter matching nothing, are usage errors saying what exists", () => {
    expect(() => upgradeEdges(GRAPH, { channel: "beta" })).toThrow(
      /--channel beta: the catalog has no such channel/,
    );
    expect(upgradeEdges(GRAPH, { from: "0.3.0" })).toEqual([]);
    const error = noEdges({ from: "0.3.0" }, 3);
    expect(error.message).toBe("no upgrade edge of the catalog matches --from 0.3.0 (3 edge(s) in all)");
    expect(error.exitCode).toBe(2);
    expect(noEdges({}, 0).message).toContain("the catalog has no upgrade edge");
  });

  it("an edge from a bundle the catalog no longer holds is not tried", () => {
    const graph = graphOf({
      stable: [
        { name: n("0.2.0"), replaces: n("0.0.9") },
        { name: n("0.3.0"), replaces: n("0.2.0") },
      ],
    });
    expect(pairs(upgradeEdges(graph))).toEqual(["0.2.0→0.3.0"]);
  });
});
