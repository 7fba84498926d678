// OLM v1 on the real bed, as far as this machine builds it: operator-controller's catalogd (v1.11.0,
// from the rig) against the real kube-apiserver, under its own ServiceAccount and RBAC from the
// release manifest. A file-based catalog (checked by the rig's `opm validate`) is pushed as a catalog
// image to a TLS registry on 127.0.0.1; a ClusterCatalog names it by tag; catalogd's webhook labels
// the ClusterCatalog, catalogd pulls the image (verifying the registry's certificate), unpacks it,
// reports the digest it resolved and Serving, and its HTTPS API returns the catalog's blobs.
// Then operator-controller (the newest release that builds here, v1.2.0) installs a bundle that
// `tsop bundle push` pushed, from a catalog catalogd serves: OLM v1 end to end, as far as it builds.
// No OLM v0 and no pod runner: catalogd and operator-controller are local processes on their own
// ports; nothing runs the installed operator's pods (the test asserts what OLM v1 applied).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { probe } from "../../src/testing/real/net.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { pushBundle, withoutRequiredApis } from "../run/bed.js";
import { tsop } from "../bundle/helpers.js";
import { type Catalogd, startCatalogd } from "../support/catalogd.js";
import { type OperatorController, startOperatorController } from "../support/operator-controller.js";
import { opmValidate } from "../support/opm.js";
import { rigBinary } from "../support/rig.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { pushTestImage, skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";

const INDEX_LABEL = "operators.operatorframework.io.index.configs.v1";

let cluster: RealTestCluster;
let registry: TestRegistry;
let catalogd: Catalogd;
let caDir: string;
let operatorController: OperatorController | undefined;

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
  await operatorController?.stop();
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

/** A catalog image holding `blobs` as /configs/<package>/catalog.json, pushed as <repository>:v1. */
async function pushCatalog(repository: string, blobs: Array<Record<string, unknown>>): Promise<string> {
  const catalogJson = blobs.map((b) => JSON.stringify(b)).join("\n") + "\n";
  const pkg = String(blobs.find((b) => b.schema === "olm.package")?.name);
  const configs = await testdir({ [`${pkg}/catalog.json`]: catalogJson });
  const validated = await opmValidate(configs);
  expect(validated.exitCode, validated.output).toBe(0);
  await pushTestImage(
    registry,
    repository,
    "v1",
    {
      layers: [
        [
          { path: "configs/", type: "directory" },
          { path: `configs/${pkg}/`, type: "directory" },
          { path: `configs/${pkg}/catalog.json`, content: catalogJson },
        ],
      ],
      labels: { [INDEX_LABEL]: "/configs" },
    },
    { caDir },
  );
  return `${registry.host}/${repository}:v1`;
}

async function clusterCatalogServing(name: string, ref: string): Promise<void> {
  const created = await kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "olm.operatorframework.io/v1",
      kind: "ClusterCatalog",
      metadata: { name },
      spec: { source: { type: "Image", image: { ref } } },
    }),
  );
  expect(created.exitCode, created.all).toBe(0);
  const served = await kubectl([
    "wait",
    `clustercatalog/${name}`,
    "--for=condition=Serving=True",
    "--timeout=120s",
  ]);
  const log = await readFile(catalogd.logFile, "utf8").catch(() => "");
  expect(served.exitCode, `${served.all}\ncatalogd log:\n${log.slice(-4000)}`).toBe(0);
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
  const ref = await pushCatalog("demo-catalog", blobs);
  const pushed = await skopeoInspect(registry, "demo-catalog:v1", { caDir });
  expect(pushed.Labels?.[INDEX_LABEL]).toBe("/configs");
  await clusterCatalogServing("demo", ref);
  const status = await kubectl(["get", "clustercatalog/demo", "-o", "json"]);

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

const MEMCACHED = "memcached-operator";

/** fixtures/run's memcached 0.0.1 with `edit` applied to its CSV, pushed by `tsop bundle push`. */
function pushMemcached(repository: string, edit: (csv: KubeObject) => void): Promise<string> {
  return pushBundle(registry, repository, "0.0.1", edit, ["--ca-file", registry.caFile!]);
}

/** The olm.bundle blob `opm render` derives from the bundle image (the rig's opm, trusting the registry's CA). */
async function opmRenderBundle(image: string): Promise<Record<string, unknown>> {
  const rendered = await execa(rigBinary("opm"), ["render", image, "-o", "json"], {
    env: { SSL_CERT_FILE: registry.caFile! },
    reject: false,
    all: true,
  });
  expect(rendered.exitCode, rendered.all).toBe(0);
  return JSON.parse(rendered.stdout) as Record<string, unknown>;
}

/** A catalog of one package with the bundle as its only entry, served by catalogd as ClusterCatalog `name`. */
async function serveBundle(name: string, image: string): Promise<void> {
  const bundle = await opmRenderBundle(image);
  const ref = await pushCatalog(`${name}-catalog`, [
    { schema: "olm.package", name: MEMCACHED, defaultChannel: "alpha" },
    { schema: "olm.channel", name: "alpha", package: MEMCACHED, entries: [{ name: bundle.name }] },
    bundle,
  ]);
  await clusterCatalogServing(name, ref);
}

/** The ids of tsop's olm-v1 findings on a bundle image. */
async function olmV1Findings(image: string): Promise<string[]> {
  const run = await tsop(registry.dir, [
    "bundle",
    "validate",
    image,
    "--select-optional",
    "olm-v1",
    "--ca-file",
    registry.caFile!,
    "-o",
    "json",
  ]);
  const report = JSON.parse(run.stdout) as { findings: Array<{ id: string }> };
  return report.findings.map((f) => f.id).filter((id) => id.startsWith("V1-"));
}

/**
 * A ClusterExtension `name` for the package, from ClusterCatalog `name` only (selected by the label
 * catalogd's webhook sets), installed into namespace `name` by a ServiceAccount bound to cluster-admin.
 */
async function createExtension(name: string): Promise<void> {
  for (const args of [
    ["create", "namespace", name],
    ["create", "serviceaccount", "installer", "-n", name],
    [
      "create",
      "clusterrolebinding",
      `${name}-installer`,
      "--clusterrole=cluster-admin",
      `--serviceaccount=${name}:installer`,
    ],
  ]) {
    const done = await kubectl(args);
    expect(done.exitCode, done.all).toBe(0);
  }
  const created = await kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "olm.operatorframework.io/v1",
      kind: "ClusterExtension",
      metadata: { name },
      spec: {
        namespace: name,
        serviceAccount: { name: "installer" },
        source: {
          sourceType: "Catalog",
          catalog: {
            packageName: MEMCACHED,
            selector: { matchLabels: { "olm.operatorframework.io/metadata.name": name } },
          },
        },
      },
    }),
  );
  expect(created.exitCode, created.all).toBe(0);
}

async function extensionStatus(name: string) {
  const got = await kubectl(["get", `clusterextension/${name}`, "-o", "json"]);
  expect(got.exitCode, got.all).toBe(0);
  return JSON.parse(got.stdout) as {
    status?: {
      conditions?: Array<{ type: string; status: string; message: string }>;
      install?: { bundle: { name: string; version: string } };
    };
  };
}

/** operator-controller, started once for the tests that need it (after catalogd serves their catalogs). */
async function ensureOperatorController(): Promise<void> {
  operatorController ??= await startOperatorController(cluster, {
    catalogdCaFile: catalogd.caFile,
    pullCaDir: caDir,
  });
}

async function operatorControllerLog(): Promise<string> {
  return (await readFile(operatorController!.logFile, "utf8").catch(() => "")).slice(-4000);
}

test("operator-controller installs a bundle tsop pushed, from a catalog catalogd serves", async () => {
  // The bundle of fixtures/run without the API it requires (a dependency: V1-03).
  const image = await pushMemcached("memcached-bundle", withoutRequiredApis);
  expect(await olmV1Findings(image)).toEqual([]);
  await serveBundle("memcached", image);

  await ensureOperatorController();
  await createExtension("memcached");
  const installed = await kubectl([
    "wait",
    "clusterextension/memcached",
    "--for=condition=Installed=True",
    "--timeout=150s",
  ]);
  const extension = await extensionStatus("memcached");
  expect(
    installed.exitCode,
    `${installed.all}\n${JSON.stringify(extension.status)}\noperator-controller log:\n${await operatorControllerLog()}`,
  ).toBe(0);
  expect(extension.status?.install?.bundle).toEqual({ name: "memcached-operator.v0.0.1", version: "0.0.1" });

  // What OLM v1 applied from the bundle, seen by kubectl.
  const crd = await kubectl([
    "get",
    "crd/memcacheds.cache.example.com",
    "-o",
    "jsonpath={.status.conditions[?(@.type=='Established')].status}",
  ]);
  expect(crd.stdout).toBe("True");
  const deployment = await kubectl([
    "get",
    "deployment/memcached-operator-controller-manager",
    "-n",
    "memcached",
    "-o",
    "json",
  ]);
  expect(deployment.exitCode, deployment.all).toBe(0);
  const spec = JSON.parse(deployment.stdout) as {
    spec: { template: { spec: { serviceAccountName: string } } };
  };
  expect(spec.spec.template.spec.serviceAccountName).toBe("memcached-operator-controller-manager");
  const account = await kubectl([
    "get",
    "serviceaccount/memcached-operator-controller-manager",
    "-n",
    "memcached",
  ]);
  expect(account.exitCode, account.all).toBe(0);
});

/** Bundles the olm-v1 suite refuses, and what operator-controller says when asked to install each. */
const REFUSED: Array<{ id: string; name: string; edit: (csv: KubeObject) => void; refusal: string }> = [
  {
    id: "V1-01",
    name: "own-namespace",
    edit: (csv) => {
      withoutRequiredApis(csv);
      for (const mode of (csv.spec as { installModes: Array<{ type: string; supported: boolean }> })
        .installModes)
        if (mode.type === "AllNamespaces") mode.supported = false;
    },
    refusal: "do not support targeting all namespaces",
  },
  {
    // The fixture's required CRD becomes olm.gvk.required in the catalog (opm render).
    id: "V1-03",
    name: "required-api",
    edit: () => undefined,
    refusal: 'has a dependency declared via property "olm.gvk.required"',
  },
  {
    id: "V1-04",
    name: "apiservice",
    edit: (csv) => {
      withoutRequiredApis(csv);
      (csv.spec as Record<string, unknown>).apiservicedefinitions = {
        owned: [
          {
            group: "metrics.example.com",
            version: "v1",
            kind: "Usage",
            name: "usages",
            displayName: "Usage",
            deploymentName: "memcached-operator-controller-manager",
            containerPort: 8443,
          },
        ],
      };
    },
    refusal: "apiServiceDefintions are not supported",
  },
];

test("what the olm-v1 suite refuses, operator-controller refuses too", async () => {
  await ensureOperatorController();
  for (const c of REFUSED) {
    const image = await pushMemcached(`${c.name}-bundle`, c.edit);
    expect(await olmV1Findings(image), c.name).toContain(c.id);
    await serveBundle(c.name, image);
    await createExtension(c.name);
  }
  // operator-controller reports each refusal on the ClusterExtension's conditions.
  for (const c of REFUSED) {
    let messages: string[] = [];
    for (let i = 0; i < 240 && !messages.some((m) => m.includes(c.refusal)); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      messages = ((await extensionStatus(c.name)).status?.conditions ?? []).map((x) => x.message);
    }
    expect(
      messages.join("\n"),
      `${c.id} (${c.name}); operator-controller log:\n${await operatorControllerLog()}`,
    ).toContain(c.refusal);
    expect((await extensionStatus(c.name)).status?.install).toBeUndefined();
  }
});
