// OLM v1 on the real bed, as far as this machine builds it: operator-controller's catalogd (v1.11.0,
// from the rig) against the real kube-apiserver, under its own ServiceAccount and RBAC from the
// release manifest. A file-based catalog (checked by the rig's `opm validate`) is pushed as a catalog
// image to a TLS registry on 127.0.0.1; a ClusterCatalog names it by tag; catalogd's webhook labels
// the ClusterCatalog, catalogd pulls the image (verifying the registry's certificate), unpacks it,
// reports the digest it resolved and Serving, and its HTTPS API returns the catalog's blobs.
// No OLM v0 and no pod runner: catalogd is a local process on its own ports.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { probe } from "../../src/testing/real/net.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { type Catalogd, startCatalogd } from "../support/catalogd.js";
import { opmValidate } from "../support/opm.js";
import { pushTestImage, skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";

const INDEX_LABEL = "operators.operatorframework.io.index.configs.v1";

let cluster: RealTestCluster;
let registry: TestRegistry;
let catalogd: Catalogd;
let caDir: string;

/** A directory holding only the registry's CA (containers/image reads every file of a cert dir). */
async function registryCaDir(): Promise<string> {
  const dir = join(registry.dir, "trust");
  await mkdir(dir);
  await writeFile(join(dir, "ca.crt"), await readFile(registry.caFile!));
  return dir;
}

beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  caDir = await registryCaDir();
  cluster = (await startTestCluster({ controlPlane: "real" })) as RealTestCluster;
  catalogd = await startCatalogd(cluster, { pullCaDir: caDir });
});

afterAll(async () => {
  await catalogd?.stop();
  await cluster?.stop();
  await registry?.stop();
});

/** A small catalog: one package, one channel, two bundles upgrading one to the other. */
function catalogBlobs(): Array<Record<string, unknown>> {
  const bundle = (version: string) => ({
    schema: "olm.bundle",
    name: `demo-operator.v${version}`,
    package: "demo-operator",
    image: `${registry.host}/demo-operator-bundle:v${version}`,
    properties: [
      { type: "olm.gvk", value: { group: "demo.example.com", kind: "Widget", version: "v1" } },
      { type: "olm.package", value: { packageName: "demo-operator", version } },
    ],
  });
  return [
    { schema: "olm.package", name: "demo-operator", defaultChannel: "stable" },
    {
      schema: "olm.channel",
      name: "stable",
      package: "demo-operator",
      entries: [
        { name: "demo-operator.v0.1.0" },
        { name: "demo-operator.v0.2.0", replaces: "demo-operator.v0.1.0" },
      ],
    },
    bundle("0.1.0"),
    bundle("0.2.0"),
  ];
}

async function kubectl(args: string[], input?: string) {
  return execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, ...args], {
    ...(input !== undefined ? { input } : {}),
    reject: false,
    all: true,
  });
}

test("catalogd unpacks a catalog image named by a ClusterCatalog and serves it over HTTPS", async () => {
  const blobs = catalogBlobs();
  const catalogJson = blobs.map((b) => JSON.stringify(b)).join("\n") + "\n";
  const configs = await testdir({ "demo-operator/catalog.json": catalogJson });
  const validated = await opmValidate(configs);
  expect(validated.exitCode, validated.output).toBe(0);

  await pushTestImage(
    registry,
    "demo-catalog",
    "v1",
    {
      layers: [
        [
          { path: "configs/", type: "directory" },
          { path: "configs/demo-operator/", type: "directory" },
          { path: "configs/demo-operator/catalog.json", content: catalogJson },
        ],
      ],
      labels: { [INDEX_LABEL]: "/configs" },
    },
    { caDir },
  );
  const pushed = await skopeoInspect(registry, "demo-catalog:v1", { caDir });
  expect(pushed.Labels?.[INDEX_LABEL]).toBe("/configs");

  const created = await kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "olm.operatorframework.io/v1",
      kind: "ClusterCatalog",
      metadata: { name: "demo" },
      spec: { source: { type: "Image", image: { ref: `${registry.host}/demo-catalog:v1` } } },
    }),
  );
  expect(created.exitCode, created.all).toBe(0);
  const served = await kubectl([
    "wait",
    "clustercatalog/demo",
    "--for=condition=Serving=True",
    "--timeout=120s",
  ]);
  const status = await kubectl(["get", "clustercatalog/demo", "-o", "json"]);
  const log = await readFile(catalogd.logFile, "utf8").catch(() => "");
  expect(served.exitCode, `${served.all}\n${status.stdout}\ncatalogd log:\n${log.slice(-4000)}`).toBe(0);

  const catalog = JSON.parse(status.stdout) as {
    metadata: { labels?: Record<string, string> };
    status: { resolvedSource: { image: { ref: string } }; urls: { base: string }; lastUnpacked?: string };
  };
  // catalogd's mutating webhook, called by the API server, labelled the catalog with its name.
  expect(catalog.metadata.labels?.["olm.operatorframework.io/metadata.name"]).toBe("demo");
  // The tag was resolved to the digest skopeo sees in the registry.
  expect(catalog.status.resolvedSource.image.ref).toBe(`${registry.host}/demo-catalog@${pushed.Digest}`);
  expect(catalog.status.urls.base).toBe(`${catalogd.url}/catalogs/demo`);

  const ca = await readFile(catalogd.caFile, "utf8");
  const all = await probe(`${catalog.status.urls.base}/api/v1/all`, { ca });
  expect(all.status, all.body).toBe(200);
  const servedBlobs = all.body
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const key = (b: Record<string, unknown>) => `${String(b.schema)}/${String(b.name)}`;
  expect(servedBlobs.map(key).sort()).toEqual(blobs.map(key).sort());
  for (const blob of blobs) expect(servedBlobs.find((b) => key(b) === key(blob))).toEqual(blob);

  // A catalog catalogd does not have is a 404, not an empty answer.
  const missing = await probe(`${catalogd.url}/catalogs/absent/api/v1/all`, { ca });
  expect(missing.status).toBe(404);
});
