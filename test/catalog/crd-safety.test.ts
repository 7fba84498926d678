// The CRD schema-safety checks (CAT-16…18, src/catalog/crd-safety.ts) on one edge each, called
// directly: which finding, and the words that name the CRD, version and field. graph-corpus.test.ts
// runs the same cases through the built CLI.
import { describe, expect, it } from "vitest";
import { crdSafety } from "../../src/catalog/crd-safety.js";
import { catalogGraph } from "../../src/catalog/graph.js";
import { readYamlValues } from "../../src/common/yaml/read-values.js";
import { addBlob, type Blob, emptyCatalog } from "../../src/catalog/fbc.js";
import { bundle, fbc, widgetCrd } from "./graph-corpus.js";

const SIZE = { size: { type: "integer", maximum: 10 }, mode: { type: "string", enum: ["fast", "safe"] } };

/** The findings for 0.1.0 (with `before`) → 0.2.0 (with `after`). */
function findings(before: object, after: object) {
  const catalog = emptyCatalog();
  const text = fbc({
    channels: { stable: [{ name: "widget.v0.1.0" }, { name: "widget.v0.2.0", replaces: "widget.v0.1.0" }] },
    bundles: [bundle("0.1.0", { crds: [before] }), bundle("0.2.0", { crds: [after] })],
  });
  for (const blob of readYamlValues(text, { where: "test" })) addBlob(catalog, blob as Blob);
  const pkg = catalogGraph(catalog)[0]!;
  return crdSafety(
    "widget.v0.1.0",
    pkg.bundles.get("widget.v0.1.0"),
    "widget.v0.2.0",
    pkg.bundles.get("widget.v0.2.0"),
  );
}

describe("CRD schema safety between two bundles", () => {
  it("no finding for compatible changes: a field added, limits loosened, a version added", () => {
    const after = widgetCrd([
      { name: "v1alpha1", storage: false, spec: SIZE },
      { name: "v1", spec: { ...SIZE, size: { type: "integer" }, extra: { type: "string" } } },
    ]);
    expect(findings(widgetCrd([{ name: "v1", spec: SIZE }]), after)).toEqual([]);
  });

  it("CAT-16: a removed field, named with its path, CRD and version (its children not repeated)", () => {
    const before = widgetCrd([
      { name: "v1", spec: { ...SIZE, tls: { type: "object", properties: { ca: { type: "string" } } } } },
    ]);
    const after = widgetCrd([{ name: "v1", spec: { mode: SIZE.mode } }]);
    const found = findings(before, after);
    expect(found.map((f) => [f.id, f.level])).toEqual([
      ["CAT-16", "error"],
      ["CAT-16", "error"],
    ]);
    expect(found[0]!.message).toContain("removes field .spec.size from widgets.example.com v1");
    expect(found[1]!.message).toContain("removes field .spec.tls from");
  });

  it("CAT-16: nothing is removed under x-kubernetes-preserve-unknown-fields", () => {
    const after = widgetCrd([{ name: "v1", spec: {} }]);
    (after.spec.versions[0]!.schema.openAPIV3Schema.properties.spec as Record<string, unknown>)[
      "x-kubernetes-preserve-unknown-fields"
    ] = true;
    expect(findings(widgetCrd([{ name: "v1", spec: SIZE }]), after)).toEqual([]);
  });

  it("CAT-17: each tightening in words", () => {
    const after = widgetCrd([
      {
        name: "v1",
        spec: {
          size: { type: "integer", maximum: 5, minimum: 1 },
          mode: { type: "string", enum: ["safe"], pattern: "^s" },
        },
        required: ["size"],
      },
    ]);
    const found = findings(widgetCrd([{ name: "v1", spec: SIZE }]), after);
    expect(found.every((f) => f.id === "CAT-17")).toBe(true);
    const text = found.map((f) => f.message).join("\n");
    expect(text).toContain("new required field(s) size");
    expect(text).toContain("maximum 10 → 5");
    expect(text).toContain("minimum none → 1");
    expect(text).toContain('"fast" no longer allowed');
    expect(text).toContain('pattern none → "^s"');
  });

  it("CAT-18: a served version no longer served, unless a conversion webhook carries it", () => {
    const two = (served: boolean, conversion?: string) =>
      widgetCrd(
        [
          { name: "v1alpha1", served, storage: false, spec: SIZE },
          { name: "v1", spec: SIZE },
        ],
        conversion,
      );
    expect(findings(two(true), two(false)).map((f) => f.id)).toEqual(["CAT-18"]);
    expect(
      findings(two(true), two(false))
        .map((f) => f.message)
        .join(),
    ).toContain("stops serving widgets.example.com version v1alpha1");
    expect(findings(two(true, "Webhook"), two(false, "Webhook"))).toEqual([]);
  });

  it("CAT-18: the storage version moved to one lacking a field, or the old one removed", () => {
    const before = widgetCrd([{ name: "v1", spec: SIZE }]);
    const moved = widgetCrd([
      { name: "v1", storage: false, spec: SIZE },
      { name: "v2", spec: { mode: SIZE.mode } },
    ]);
    expect(findings(before, moved).map((f) => f.message)).toEqual([
      expect.stringContaining(
        "moves widgets.example.com's storage version from v1 to v2 without a conversion webhook, and v2 lacks .spec.size",
      ),
    ]);
    const removed = widgetCrd([{ name: "v2", spec: SIZE }]);
    expect(findings(before, removed).map((f) => f.message)).toEqual([
      expect.stringContaining("drops widgets.example.com version v1, the storage version"),
    ]);
  });
});
