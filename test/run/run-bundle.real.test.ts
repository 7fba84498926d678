// `tsop run bundle` and `tsop cleanup` against real OLM on the real test bed: the kube-apiserver,
// OLM v0.28.0's own manifests installed by `tsop olm install`, OLM's operators and packageserver
// running, the registry pod served by the real opm from tsop's ConfigMaps, the bundle unpacked by
// OLM's Job (cpb + `opm alpha bundle extract` against the API), and the bundle image pulled from a
// real registry on 127.0.0.1. Also `tsop olm` install/status/uninstall on that cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient } from "../../src/kube/client.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, pushBundle, snapshot, withoutRequiredApis } from "./bed.js";

let bed: OlmBed;
let registry: TestRegistry;
let client: KubeClient;
let kubeconfig: string[];

beforeAll(async () => {
  registry = await startRegistry();
  bed = await startOlmBed({ namespaces: ["demo", "requires"] });
  kubeconfig = ["--kubeconfig", bed.cluster.kubeconfigPath];
  client = await KubeClient.connect({ kubeconfig: bed.cluster.kubeconfigPath, env: {} });
}, 600_000);

afterAll(async () => {
  client?.close();
  await bed?.stop();
  await registry?.stop();
}, 120_000);

const OLM = "operators.coreos.com/v1alpha1";

describe("real OLM: tsop olm on the test bed", () => {
  it("reports OLM healthy (table and JSON) and refuses a second install", async () => {
    const status = await runTsop(["olm", "status", ...kubeconfig, "-o", "json"]);
    expect(status.exitCode, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as {
      verdict: string;
      version: string;
      rows: Array<{ kind: string; name: string; healthy: boolean }>;
    };
    expect(parsed).toMatchObject({ verdict: "healthy", version: "v0.28.0" });
    // Every object of the real release is there and healthy: the packageserver CSV Succeeded by the
    // real olm-operator, the Deployments available.
    expect(parsed.rows.find((r) => r.kind === "ClusterServiceVersion")).toMatchObject({
      name: "packageserver",
      healthy: true,
    });
    expect(status.stderr).not.toMatch(/download|warn/i);
    // The packageserver APIService is really served (namespace deletion depends on it).
    const apiService = await client.get({
      apiVersion: "apiregistration.k8s.io/v1",
      kind: "APIService",
      name: "v1.packages.operators.coreos.com",
    });
    expect(apiService?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Available", status: "True" }),
    );
    const again = await runTsop(["olm", "install", ...kubeconfig]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("OLM is already installed");
  }, 120_000);
});

describe("real OLM: run bundle", () => {
  it("AllNamespaces: real resolution, unpack and install to CSV Succeeded; uninstall refuses; cleanup leaves no object tsop created", async () => {
    const image = await pushBundle(registry, "memcached-bundle", "0.0.1", withoutRequiredApis);
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = await runTsop(
      [
        "run",
        "bundle",
        image,
        "-n",
        "demo",
        "--install-mode",
        "AllNamespaces",
        "--plain-http",
        "--timeout",
        "5m",
        ...kubeconfig,
      ],
      { timeoutMs: 330_000 },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("OLM installed memcached-operator.v0.0.1 in namespace demo");
    const csv = await client.get({
      apiVersion: OLM,
      kind: "ClusterServiceVersion",
      namespace: "demo",
      name: "memcached-operator.v0.0.1",
    });
    expect(csv?.status?.phase).toBe("Succeeded");
    // OLM's unpack Job really ran: its ConfigMap holds the bundle's manifests, extracted by opm.
    const configMaps = (await client.list("v1", "ConfigMap", { namespace: "demo" })).items;
    const unpacked = configMaps.find(
      (cm) =>
        Object.values((cm.binaryData ?? {}) as Record<string, string>).length > 0 &&
        (cm.metadata.ownerReferences ?? []).some((o) => o.kind === "CatalogSource"),
    );
    expect(unpacked, "the bundle-unpack ConfigMap").toBeDefined();
    expect(
      unpacked?.metadata.annotations?.["operatorframework.io/bundle-unpack-min-retry-interval"] ?? "x",
    ).toBeTruthy();

    const uninstall = await runTsop(["olm", "uninstall", ...kubeconfig]);
    expect(uninstall.exitCode).toBe(1);
    expect(uninstall.stderr).toContain("operators installed through OLM are still present");
    expect(uninstall.stderr).toContain("memcached-operator.v0.0.1");

    const cleanup = await runTsop(
      ["cleanup", "memcached-operator", "-n", "demo", "--delete-crds", ...kubeconfig],
      {
        timeoutMs: 330_000,
      },
    );
    expect(cleanup.exitCode, cleanup.stderr).toBe(0);
    let left: string[] = [];
    for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
      left = added(before, await snapshot(bed.cluster.kubeconfigPath));
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect(left).toEqual([]);
  }, 600_000);

  it("a required API that no catalog provides: real ConstraintsNotSatisfiable, exit 4, nothing left", async () => {
    const image = await pushBundle(registry, "memcached-requires", "0.0.1");
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = await runTsop(
      ["run", "bundle", image, "-n", "requires", "--plain-http", "--timeout", "3m", ...kubeconfig],
      {
        timeoutMs: 240_000,
      },
    );
    expect(run.exitCode, run.stderr).toBe(4);
    expect(run.stderr).toMatch(/constraints not satisfiable/i);
    // OLM's own words: the API the bundle requires, which no catalog provides.
    expect(run.stderr).toContain(
      "bundle memcached-operator.v0.0.1 requires an operator providing an API with group: cert.example.com, version: v1, kind: Certificate",
    );
    let left: string[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      left = added(before, await snapshot(bed.cluster.kubeconfigPath));
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect(left).toEqual([]);
  }, 400_000);
});
