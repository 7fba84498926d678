// `tsop run bundle --olm v1`, `run bundle-upgrade --olm v1` and `cleanup --olm v1` on a bed with
// OLM v1 (catalogd v1.11.0 and operator-controller v1.2.0 as local processes: test/support/
// catalogd.ts, operator-controller.ts; no OLM v0, no pod runner) and a TLS registry on 127.0.0.1.
// The oracles are kubectl and the cluster itself: the ClusterExtension's status as operator-
// controller writes it, the objects it applied, the catalog catalogd serves, and a snapshot of every
// object before and after. Nothing runs the installed operator's pods here (no kubelet, no pod
// runner outside the OLM lane): the test asserts what OLM v1 applied.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { probe } from "../../src/testing/real/net.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { runTsop } from "../support/cli.js";
import { type Catalogd, startCatalogd } from "../support/catalogd.js";
import { type OperatorController, startOperatorController } from "../support/operator-controller.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { added, pushBundle, snapshot, withoutRequiredApis } from "./bed.js";

const PKG = "memcached-operator";
let cluster: RealTestCluster;
let registry: TestRegistry;
let catalogd: Catalogd;
let operatorController: OperatorController;
let images: { v1: string; v2: string };

beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  const caDir = join(registry.dir, "trust");
  await mkdir(caDir);
  await writeFile(join(caDir, "ca.crt"), await readFile(registry.caFile!));
  cluster = (await startTestCluster({ controlPlane: "real", workloads: true })) as RealTestCluster;
  catalogd = await startCatalogd(cluster, { pullCaDir: caDir });
  operatorController = await startOperatorController(cluster, {
    catalogdCaFile: catalogd.caFile,
    pullCaDir: caDir,
  });
  // The fixture's required API is a dependency OLM v1 refuses (V1-03); its own test below.
  const push = (version: "0.0.1" | "0.0.2") =>
    pushBundle(registry, "memcached-bundle", version, withoutRequiredApis, ["--ca-file", registry.caFile!]);
  images = { v1: await push("0.0.1"), v2: await push("0.0.2") };
});

afterAll(async () => {
  await operatorController?.stop();
  await catalogd?.stop();
  await cluster?.stop();
  await registry?.stop();
});

async function tsop(args: string[]) {
  const started = Date.now();
  const run = await runTsop([...args, "--kubeconfig", cluster.kubeconfigPath], { timeoutMs: 150_000 });
  if (process.env.TSOP_V1_TRACE)
    console.error(
      `tsop ${args.slice(0, 2).join(" ")}: ${Date.now() - started} ms, exit ${run.exitCode}\n${run.stderr}`,
    );
  return run;
}

async function kubectl(args: string[], input?: string) {
  return execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, ...args], {
    ...(input !== undefined ? { input } : {}),
    reject: false,
    all: true,
  });
}

async function getJson(args: string[]): Promise<KubeObject> {
  const got = await kubectl(["get", ...args, "-o", "json"]);
  expect(got.exitCode, got.all).toBe(0);
  return JSON.parse(got.stdout) as KubeObject;
}

async function logs(): Promise<string> {
  const tail = async (file: string) => (await readFile(file, "utf8").catch(() => "")).slice(-3000);
  return `operator-controller:\n${await tail(operatorController.logFile)}\ncatalogd:\n${await tail(catalogd.logFile)}`;
}

/** The bundles catalogd serves for the package's ClusterCatalog (its HTTPS API, verified TLS). */
async function servedBundles(catalog: string): Promise<Array<Record<string, unknown>>> {
  const obj = await getJson(["clustercatalog", catalog]);
  const base = (obj.status as { urls: { base: string } }).urls.base;
  const all = await probe(`${base}/api/v1/all`, { ca: await readFile(catalogd.caFile, "utf8") });
  expect(all.status, all.body).toBe(200);
  return all.body
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test("run bundle --olm v1 installs, bundle-upgrade moves it to v0.0.2, cleanup leaves nothing", async () => {
  const before = await snapshot(cluster.kubeconfigPath);
  const run = await tsop([
    "run",
    "bundle",
    images.v1,
    "--olm",
    "v1",
    "-n",
    "memcached",
    "--create-namespace",
    "--ca-file",
    registry.caFile!,
    "--timeout",
    "3m",
    "-o",
    "json",
  ]);
  expect(run.exitCode, `${run.stderr}\n${await logs()}`).toBe(0);
  const result = JSON.parse(run.stdout) as {
    catalogImage: string;
    clusterExtension: string;
    clusterCatalog: string;
  };
  expect(result.catalogImage).toMatch(new RegExp(`^${registry.host}/memcached-bundle-catalog@sha256:`));

  // operator-controller's own account of the install, and what it applied.
  const extension = await getJson(["clusterextension", result.clusterExtension]);
  expect((extension.status as { install?: unknown }).install).toEqual({
    bundle: { name: "memcached-operator.v0.0.1", version: "0.0.1" },
  });
  const catalog = await getJson(["clustercatalog", result.clusterCatalog]);
  expect((catalog.status as { resolvedSource: { image: { ref: string } } }).resolvedSource.image.ref).toBe(
    result.catalogImage,
  );
  const deployment = await getJson([
    "deployment",
    "memcached-operator-controller-manager",
    "-n",
    "memcached",
  ]);
  expect(
    (deployment.spec as { template: { spec: { serviceAccountName: string } } }).template.spec
      .serviceAccountName,
  ).toBe("memcached-operator-controller-manager");
  const crd = await kubectl([
    "get",
    "crd/memcacheds.cache.example.com",
    "-o",
    "jsonpath={.status.conditions[?(@.type=='Established')].status}",
  ]);
  expect(crd.stdout).toBe("True");
  // The operator's ServiceAccount holds its CSV's permissions (granted by OLM v1 with the installer's RBAC).
  const can = await kubectl([
    "auth",
    "can-i",
    "list",
    "memcacheds.cache.example.com",
    "-n",
    "memcached",
    "--as",
    "system:serviceaccount:memcached:memcached-operator-controller-manager",
  ]);
  expect(can.stdout.trim(), can.all).toBe("yes");

  const upgrade = await tsop([
    "run",
    "bundle-upgrade",
    images.v2,
    "--olm",
    "v1",
    "--ca-file",
    registry.caFile!,
    "--timeout",
    "3m",
    "-o",
    "json",
  ]);
  expect(upgrade.exitCode, `${upgrade.stderr}\n${await logs()}`).toBe(0);
  const upgraded = JSON.parse(upgrade.stdout) as { catalogImage: string };
  const moved = await getJson(["clusterextension", result.clusterExtension]);
  expect((moved.status as { install?: unknown }).install).toEqual({
    bundle: { name: "memcached-operator.v0.0.2", version: "0.0.2" },
  });
  // catalogd serves both bundles with the upgrade edge tsop wrote.
  const blobs = await servedBundles(result.clusterCatalog);
  const channel = blobs.find((b) => b.schema === "olm.channel") as { entries: unknown[] };
  expect(channel.entries).toEqual([
    { name: "memcached-operator.v0.0.1" },
    { name: "memcached-operator.v0.0.2", replaces: "memcached-operator.v0.0.1", skipRange: ">=0.0.1 <0.0.2" },
  ]);
  expect(upgraded.catalogImage).not.toBe(result.catalogImage);

  const cleanup = await tsop(["cleanup", PKG, "--olm", "v1", "--timeout", "2m"]);
  expect(cleanup.exitCode, `${cleanup.stderr}\n${await logs()}`).toBe(0);
  expect(cleanup.stdout).toContain("ClusterExtension");
  expect(added(before, await snapshot(cluster.kubeconfigPath))).toEqual([]);
});

test(
  "OLM v1 is detected when only its APIs are served; a namespace enforcing restricted takes the install",
  { timeout: 300_000 },
  async () => {
    const ns = await kubectl(["create", "namespace", "psa"]);
    expect(ns.exitCode, ns.all).toBe(0);
    const label = await kubectl([
      "label",
      "namespace",
      "psa",
      "pod-security.kubernetes.io/enforce=restricted",
    ]);
    expect(label.exitCode, label.all).toBe(0);
    const before = await snapshot(cluster.kubeconfigPath);
    // No --olm: the bed serves ClusterExtension and ClusterCatalog, not OLM v0's CatalogSource.
    const run = await tsop([
      "run",
      "bundle",
      images.v1,
      "-n",
      "psa",
      "--ca-file",
      registry.caFile!,
      "--timeout",
      "3m",
    ]);
    expect(run.exitCode, `${run.stderr}\n${await logs()}`).toBe(0);
    expect(run.stderr).toContain("using OLM v1");
    const extension = await getJson(["clusterextension", "memcached-operator"]);
    expect((extension.status as { install?: { bundle: { version: string } } }).install?.bundle.version).toBe(
      "0.0.1",
    );
    const cleanup = await tsop(["cleanup", PKG]);
    expect(cleanup.exitCode, cleanup.stderr).toBe(0);
    expect(added(before, await snapshot(cluster.kubeconfigPath))).toEqual([]);
  },
);

test("what OLM v1 cannot install is refused before anything is created", async () => {
  // The fixture as it is: its required API becomes olm.gvk.required, a dependency (V1-03).
  const image = await pushBundle(registry, "memcached-deps", "0.0.1", () => undefined, [
    "--ca-file",
    registry.caFile!,
  ]);
  const before = await snapshot(cluster.kubeconfigPath);
  const run = await tsop([
    "run",
    "bundle",
    image,
    "--olm",
    "v1",
    "-n",
    "default",
    "--ca-file",
    registry.caFile!,
  ]);
  expect(run.exitCode).not.toBe(0);
  expect(run.stderr).toContain("V1-03");
  expect(run.stderr).toContain("nothing was created");
  expect(added(before, await snapshot(cluster.kubeconfigPath))).toEqual([]);
});

/** A CRD standing in for cert-manager's Certificate API: what tsop looks for before it lets webhooks through. */
const CERT_MANAGER_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "certificates.cert-manager.io" },
  spec: {
    group: "cert-manager.io",
    scope: "Namespaced",
    names: {
      kind: "Certificate",
      plural: "certificates",
      singular: "certificate",
      listKind: "CertificateList",
    },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

test(
  "a bundle operator-controller refuses fails with its conditions, and the run removes what it created",
  { timeout: 200_000 },
  async () => {
    // With cert-manager's API served, tsop lets a webhook through; operator-controller v1.2.0 refuses
    // every webhookDefinition (registryv1.go: "webhookDefinitions are not supported").
    const crd = await kubectl(["apply", "-f", "-"], JSON.stringify(CERT_MANAGER_CRD));
    expect(crd.exitCode, crd.all).toBe(0);
    const image = await pushBundle(
      registry,
      "memcached-webhook",
      "0.0.1",
      (csv) => {
        withoutRequiredApis(csv);
        csv.spec!.webhookdefinitions = [
          {
            type: "ValidatingAdmissionWebhook",
            generateName: "vmemcached.kb.io",
            deploymentName: "memcached-operator-controller-manager",
            admissionReviewVersions: ["v1"],
            sideEffects: "None",
            failurePolicy: "Fail",
            containerPort: 443,
            targetPort: 9443,
            webhookPath: "/validate-cache-example-com-v1alpha1-memcached",
            rules: [
              {
                apiGroups: ["cache.example.com"],
                apiVersions: ["v1alpha1"],
                operations: ["CREATE", "UPDATE"],
                resources: ["memcacheds"],
              },
            ],
          },
        ];
      },
      ["--ca-file", registry.caFile!],
    );
    const before = await snapshot(cluster.kubeconfigPath);
    const run = await tsop([
      "run",
      "bundle",
      image,
      "--olm",
      "v1",
      "-n",
      "default",
      "--ca-file",
      registry.caFile!,
      "--timeout",
      "40s",
    ]);
    expect(run.exitCode, run.stderr).not.toBe(0);
    // operator-controller's own reason, from the ClusterExtension's conditions.
    expect(run.stderr).toContain("webhookDefinitions are not supported");
    expect(run.stderr).toContain("removing what this run created");
    expect(added(before, await snapshot(cluster.kubeconfigPath))).toEqual([]);
  },
);
