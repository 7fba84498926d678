// operator-sdk and opm as oracles of what tsop writes, for every kind of bundle the suite produces
// (memcached fixture, scaffolded project with related images, webhooks, namespaced permissions):
// - `operator-sdk bundle validate --select-optional suite=operatorframework` passes the bundle;
// - `opm render` reads the image `tsop bundle push` pushed: package, version, olm.gvk properties;
// - both catalogs tsop writes for it — `tsop run bundle`'s (src/olm/run/catalog.ts) and `tsop
//   bundle --fbc` — pass `opm validate`, are served by `opm serve` (queried over gRPC), and hold the
//   olm.bundle `opm render` gives for the pushed image, metadata/dependencies.yaml and
//   metadata/properties.yaml included.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadInstallableBundle } from "../../src/bundle/load/index.js";
import { serializeCatalog, singleBundleCatalog } from "../../src/olm/run/catalog.js";
import { type Blob, opmRender, opmServe, opmValidate, servedPackage } from "../support/opm.js";
import { sdkValidate } from "../support/operator-sdk.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";
import { tsop } from "./helpers.js";
import {
  memcachedFixtureBundle,
  namespacedPermissionsBundle,
  type PeerBundle,
  scaffoldedBundle,
  tsopOk,
  webhooksBundle,
} from "./peer-bundles.js";

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(async () => {
  await registry?.stop();
});

const DEPENDENCIES = `dependencies:
- type: olm.package
  value: {packageName: etcd, version: ">=0.9.0 <1.0.0"}
- type: olm.gvk
  value: {group: etcd.database.coreos.com, kind: EtcdCluster, version: v1beta2}
- type: olm.label
  value: {label: tsop.dev/peer-test}
`;
const PROPERTIES = `properties:
- type: olm.maxOpenShiftVersion
  value: "4.15"
- type: olm.label
  value: {label: tsop.dev/provides-cache}
`;

type Property = { type: string; value: unknown };
const OBJECT_TYPES = new Set(["olm.bundle.object"]);
const sortKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
        )
      : v;
const canon = (v: unknown) => JSON.stringify(sortKeys(v));

/**
 * What two catalogs must agree on for one bundle: everything but the manifests, which a catalog may
 * carry inline (olm.bundle.object, as opm render and run bundle do) or leave to the bundle image
 * (the --fbc fragment: OLM unpacks the image it names).
 */
function comparable(blob: Blob) {
  const properties = (blob.properties as Property[])
    .filter((p) => !OBJECT_TYPES.has(p.type))
    .map((p) => canon(p))
    .sort();
  const relatedImages = ((blob.relatedImages ?? []) as Array<{ name?: string; image: string }>)
    .map((r) => canon({ name: r.name ?? "", image: r.image }))
    .sort();
  return {
    schema: blob.schema,
    name: blob.name,
    package: blob.package,
    image: blob.image,
    properties,
    relatedImages,
  };
}

const props = (blob: Blob, type: string) =>
  (blob.properties as Property[]).filter((p) => p.type === type).map((p) => p.value);

/** The olm.bundle.object properties of a blob, decoded, as sorted canonical JSON. */
const objectsOf = (blob: Blob) =>
  (props(blob, "olm.bundle.object") as Array<{ data: string }>)
    .map((v) => canon(JSON.parse(Buffer.from(v.data, "base64").toString("utf8"))))
    .sort();

/** The bundle's manifests read straight from its directory (not through tsop's loader). */
async function manifestsOf(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const file of await readdir(join(dir, "manifests")))
    for (const doc of parseAllDocuments(await readFile(join(dir, "manifests", file), "utf8")))
      out.push(canon(doc.toJS()));
  return out.sort();
}

/** opm validates and serves the catalog; what it serves is the bundle opm rendered. */
async function expectServed(catalog: string, b: PeerBundle, rendered: Blob, channels: string[]) {
  const validate = await opmValidate(catalog);
  expect(validate.exitCode, `opm validate ${catalog}: ${validate.output}`).toBe(0);
  const server = await opmServe(catalog);
  try {
    const served = await servedPackage(server, b.packageName);
    expect(served.packages).toEqual([b.packageName]);
    expect(served.channels.map((c) => c.name).sort()).toEqual([...channels].sort());
    expect(channels).toContain(served.defaultChannel);
    for (const bundle of served.bundles) {
      expect(bundle.csvName).toBe(rendered.name);
      expect(bundle.version).toBe(b.version);
      const apis = (bundle.providedApis ? [bundle.providedApis].flat() : []) as Array<Record<string, string>>;
      expect(apis.map((a) => `${a.group}/${a.version}/${a.kind}`).sort()).toEqual(b.gvks);
      const servedProps = ([bundle.properties ?? []].flat() as Array<{ type: string; value: string }>)
        .filter((p) => !OBJECT_TYPES.has(p.type))
        .map((p) => canon({ type: p.type, value: JSON.parse(p.value) }))
        .sort();
      expect(servedProps).toEqual(comparable(rendered).properties);
    }
    return served;
  } finally {
    await server.stop();
  }
}

async function checkRunBundleCatalog(b: PeerBundle, image: string, rendered: Blob) {
  const bundle = await loadInstallableBundle(image, { plainHttp: [registry.host] });
  const catalog = join(await testdir(), "run-catalog");
  await mkdir(join(catalog, b.packageName), { recursive: true });
  const content = singleBundleCatalog(bundle);
  await writeFile(join(catalog, b.packageName, "catalog.yaml"), serializeCatalog(content).join(""));
  const [blob] = content.bundles;
  expect(comparable(blob!)).toEqual(comparable(rendered));
  const served = await expectServed(catalog, b, rendered, [content.channel]);
  // The manifests run bundle carries inline are those opm reads from the image, and opm serves them.
  const inline = objectsOf(blob!);
  expect(inline).toEqual(objectsOf(rendered));
  expect(inline).toEqual(await manifestsOf(b.dir));
  const servedObjects = [served.bundles[0]!.object ?? []].flat().map((o) => canon(JSON.parse(String(o))));
  expect(servedObjects.sort()).toEqual(inline);
}

async function checkFbcFragment(b: PeerBundle, image: string, rendered: Blob) {
  const args = b.args.includes("--skip-generate") ? b.args : [...b.args, "--skip-generate"];
  await tsopOk(b.project, [...args, "--fbc", "fbc", "--bundle-image", image]);
  const text = await readFile(join(b.project, "fbc", b.packageName, "catalog.yaml"), "utf8");
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Blob);
  const blob = docs.find((d) => d.schema === "olm.bundle")!;
  expect(comparable(blob)).toEqual(comparable(rendered));
  const annotations = parse(await readFile(join(b.dir, "metadata/annotations.yaml"), "utf8")).annotations;
  const channels = String(annotations["operators.operatorframework.io.bundle.channels.v1"]).split(",");
  const served = await expectServed(join(b.project, "fbc"), b, rendered, channels);
  // The bundle's default channel annotation, else its only channel.
  expect(served.defaultChannel).toBe(
    annotations["operators.operatorframework.io.bundle.channel.default.v1"] ?? channels[0],
  );
  // No manifests inline: OLM unpacks the bundle image the catalog names.
  expect(served.bundles[0]!.bundlePath).toBe(image);
}

const CASES: Array<[string, () => Promise<PeerBundle>, { metadataFiles?: boolean }]> = [
  [
    "memcached fixture, with dependencies.yaml and properties.yaml",
    memcachedFixtureBundle,
    { metadataFiles: true },
  ],
  ["scaffolded project with related images", scaffoldedBundle, {}],
  ["webhooks project (defaulting, validation, conversion)", webhooksBundle, {}],
  ["namespaced permissions", namespacedPermissionsBundle, {}],
];

describe("operator-sdk and opm read every bundle and catalog tsop writes", () => {
  for (const [label, build, options] of CASES) {
    test(label, { timeout: 300_000 }, async () => {
      const b = await build();
      const verdict = await sdkValidate(b.dir, ["--select-optional", "suite=operatorframework"]);
      expect(verdict.errors, verdict.output).toEqual([]);
      expect(verdict.exitCode, verdict.output).toBe(0);
      if (options.metadataFiles) {
        await writeFile(join(b.dir, "metadata/dependencies.yaml"), DEPENDENCIES);
        await writeFile(join(b.dir, "metadata/properties.yaml"), PROPERTIES);
      }

      const image = `${registry.host}/peers/${b.packageName}-bundle:v${b.version}`;
      const push = await tsop(b.project, ["bundle", "push", image, `--plain-http=${registry.host}`]);
      expect(push.exitCode, push.stderr).toBe(0);
      const rendered = await opmRender([image], { useHttp: true });
      expect(rendered).toHaveLength(1);
      const [blob] = rendered as [Blob];
      expect(blob).toMatchObject({
        schema: "olm.bundle",
        name: `${b.packageName}.v${b.version}`,
        package: b.packageName,
        image,
      });
      expect(props(blob, "olm.package")).toEqual([{ packageName: b.packageName, version: b.version }]);
      const gvks = props(blob, "olm.gvk") as Array<Record<string, string>>;
      expect(gvks.map((g) => `${g.group}/${g.version}/${g.kind}`).sort()).toEqual(b.gvks);
      if (options.metadataFiles) {
        expect(props(blob, "olm.package.required")).toEqual([
          { packageName: "etcd", versionRange: ">=0.9.0 <1.0.0" },
        ]);
        expect(props(blob, "olm.maxOpenShiftVersion")).toEqual(["4.15"]);
      }

      await checkRunBundleCatalog(b, image, blob);
      await checkFbcFragment(b, image, blob);
    });
  }
});
