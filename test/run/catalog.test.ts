import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../src/common/errors.js";
import {
  bundleBlob,
  CONFIGMAP_PAYLOAD_LIMIT,
  channelHead,
  parseCatalog,
  partitionCatalog,
  serializeCatalog,
  singleBundleCatalog,
  withUpgrade,
} from "../../src/olm/run/catalog.js";
import { loadFixture } from "./fixtures.js";

describe("FBC for a bundle", () => {
  it("renders olm.bundle with sorted properties, the manifests last, and related images", async () => {
    const bundle = await loadFixture("0.0.1");
    const blob = bundleBlob(bundle);
    const props = blob.properties as Array<{ type: string; value: Record<string, unknown> }>;
    expect(props.map((p) => p.type)).toEqual([
      "olm.gvk",
      "olm.gvk.required",
      "olm.package",
      "olm.bundle.object",
      "olm.bundle.object",
    ]);
    expect(props[0]?.value).toEqual({ group: "cache.example.com", kind: "Memcached", version: "v1alpha1" });
    expect(props[2]?.value).toEqual({ packageName: "memcached-operator", version: "0.0.1" });
    const manifests = props
      .slice(3)
      .map((p) => JSON.parse(Buffer.from(String(p.value.data), "base64").toString()).kind);
    expect(manifests.sort()).toEqual(["ClusterServiceVersion", "CustomResourceDefinition"]);
    expect(blob.relatedImages).toEqual([
      { image: "registry.example.com/memcached-operator:v0.0.1", name: "manager" },
      { image: "registry.test/memcached-bundle:v0.0.1" },
    ]);
  });

  it("serialises byte-identically with sorted keys and a tsop channel", async () => {
    const a = serializeCatalog(singleBundleCatalog(await loadFixture("0.0.1")));
    const b = serializeCatalog(singleBundleCatalog(await loadFixture("0.0.1")));
    expect(a).toEqual(b);
    expect(a[0]).toBe(
      "---\ndefaultChannel: tsop-run-bundle\nname: memcached-operator\nschema: olm.package\n",
    );
    expect(a[1]).toBe(
      "---\nentries:\n  - name: memcached-operator.v0.0.1\nname: tsop-run-bundle\npackage: memcached-operator\nschema: olm.channel\n",
    );
  });

  it("reads back what it wrote and chains an upgrade with replaces and skipRange", async () => {
    const first = singleBundleCatalog(await loadFixture("0.0.1"));
    const parsed = parseCatalog(serializeCatalog(first), "memcached-operator");
    expect(parsed.entries).toEqual([{ name: "memcached-operator.v0.0.1" }]);
    expect(parsed.bundles).toHaveLength(1);
    const next = withUpgrade(parsed, await loadFixture("0.0.2"), "memcached-operator.v0.0.1");
    expect(next.entries[1]).toEqual({
      name: "memcached-operator.v0.0.2",
      replaces: "memcached-operator.v0.0.1",
      skipRange: ">=0.0.1 <0.0.2",
    });
    expect(channelHead(next)?.name).toBe("memcached-operator.v0.0.2");
    expect(serializeCatalog(next)).toHaveLength(4);
  });
});

describe("reading a catalog back", () => {
  it("refuses a YAML bomb (billion laughs through aliases) with a clear error, without expanding it", () => {
    const levels = ["schema: olm.bundle", "package: memcached-operator", "a: &a [x,x,x,x,x,x,x,x,x]"];
    for (let i = 1; i < 9; i++)
      levels.push(
        `l${i}: &l${i} [${Array(9)
          .fill(i === 1 ? "*a" : `*l${i - 1}`)
          .join(",")}]`,
      );
    const bomb = `---\n${levels.join("\n")}\n`;
    let refused: unknown;
    try {
      parseCatalog([bomb], "memcached-operator");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as Error).message).toMatch(
      /^the catalog of memcached-operator \(part 1\): the YAML aliases \(\*name references\) expand too much; refusing a possible YAML bomb$/,
    );
  });
});

describe("ConfigMap partitions", () => {
  const doc = (i: number, bytes: number) =>
    `---\nname: doc-${i}\ndata: ${randomBytes(bytes).toString("base64")}\n`;

  it("keeps a small catalog in one payload", async () => {
    const docs = serializeCatalog(singleBundleCatalog(await loadFixture("0.0.1")));
    const parts = partitionCatalog(docs);
    expect(parts).toHaveLength(1);
    expect(gunzipSync(parts[0] as Buffer).toString()).toBe(docs.join(""));
  });

  it("splits incompressible content below the limit, in order, losing nothing", () => {
    const docs = Array.from({ length: 12 }, (_, i) => doc(i, 3000));
    const limit = 10_000;
    const parts = partitionCatalog(docs, limit);
    expect(parts.length).toBeGreaterThan(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(limit);
    expect(parts.map((p) => gunzipSync(p).toString()).join("")).toBe(docs.join(""));
  });

  it("splits a multi-megabyte catalog below the real 1 MiB ConfigMap limit", () => {
    const docs = Array.from({ length: 15 }, (_, i) => doc(i, 150_000));
    const parts = partitionCatalog(docs);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(CONFIGMAP_PAYLOAD_LIMIT);
    expect(CONFIGMAP_PAYLOAD_LIMIT).toBeLessThan(1024 * 1024);
    expect(parts.map((p) => gunzipSync(p).toString()).join("")).toBe(docs.join(""));
  });

  it("names a single document too large for any ConfigMap", () => {
    expect(() => partitionCatalog([doc(0, 100), doc(1, 20_000)], 10_000)).toThrow(InvalidInputError);
    expect(() => partitionCatalog([doc(0, 100), doc(1, 20_000)], 10_000)).toThrow(
      /catalog entry for doc-1 is \d+ bytes compressed/,
    );
  });
});
