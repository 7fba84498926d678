// `tsop run bundle-upgrade` against real OLM v0.28.0 on one real test bed (kube-apiserver, OLM's
// own operators, the registry pods served by the real opm, bundles pulled from a real registry on
// 127.0.0.1): upgrades through `replaces` (with its --dry-run output applied server-side first) and
// through `olm.skipRange`, from a Failed CSV, a failed
// upgrade rolled back, and `tsop cleanup` afterwards. Each case uses a namespace of its own and
// ends with a cleanup, so the CRD the bundles own is free again for the next case. What the cluster
// holds is read with kubectl, not tsop's client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import type { KubeObject } from "../../src/kube/objects.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, pushBundle, snapshot, withoutRequiredApis } from "./bed.js";

const NAMESPACES = ["up-replaces", "up-skiprange", "up-failed", "up-rollback"];
const OLD = "memcached-operator.v0.0.1";
const NEW = "memcached-operator.v0.0.2";
const CATALOG = "memcached-operator-catalog";

let bed: OlmBed;
let registry: TestRegistry;
let kubeconfig: string[];

beforeAll(async () => {
  registry = await startRegistry();
  bed = await startOlmBed({ namespaces: NAMESPACES });
  kubeconfig = ["--kubeconfig", bed.cluster.kubeconfigPath];
}, 600_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
}, 120_000);

async function kubectl(args: string[]): Promise<KubeObject> {
  const { stdout } = await execa("kubectl", [...args, "-o", "json"], {
    env: { KUBECONFIG: bed.cluster.kubeconfigPath },
  });
  return JSON.parse(stdout) as KubeObject;
}

async function listNames(kind: string, namespace: string): Promise<string[]> {
  const list = (await kubectl(["get", kind, "-n", namespace])) as unknown as { items: KubeObject[] };
  return list.items.map((o) => o.metadata.name ?? "").sort();
}

// OwnNamespace: the operators of different cases never watch each other's namespaces, so one
// case left behind cannot make OLM fail the next with InterOperatorGroupOwnerConflict.
function runBundle(image: string, namespace: string, extra: string[] = []) {
  return runTsop(
    [
      "run",
      "bundle",
      image,
      "-n",
      namespace,
      "--install-mode",
      "OwnNamespace",
      "--plain-http",
      "--timeout",
      "4m",
      ...extra,
      ...kubeconfig,
    ],
    { timeoutMs: 300_000 },
  );
}

function upgrade(image: string, namespace: string, extra: string[] = []) {
  return runTsop(
    [
      "run",
      "bundle-upgrade",
      image,
      "-n",
      namespace,
      "--plain-http",
      "--timeout",
      "4m",
      ...extra,
      ...kubeconfig,
    ],
    { timeoutMs: 300_000 },
  );
}

/** `tsop cleanup --delete-crds`, then nothing tsop or OLM made for the run may be left. */
async function cleanupLeavesNothing(namespace: string, before: Set<string>): Promise<void> {
  const cleanup = await runTsop(
    ["cleanup", "memcached-operator", "-n", namespace, "--delete-crds", ...kubeconfig],
    { timeoutMs: 330_000 },
  );
  expect(cleanup.exitCode, cleanup.stderr).toBe(0);
  let left: string[] = [];
  for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
    left = added(before, await snapshot(bed.cluster.kubeconfigPath));
    if (left.length === 0) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  expect(left).toEqual([]);
}

/** The new CSV Succeeded with OLM's replacement link, the old one deleted by OLM, one registry pod. */
async function expectUpgraded(namespace: string): Promise<void> {
  expect(await listNames("clusterserviceversions", namespace)).toEqual([NEW]);
  const csv = await kubectl(["get", "clusterserviceversion", NEW, "-n", namespace]);
  expect(csv.status?.phase).toBe("Succeeded");
  // OLM writes spec.replaces from the catalog's channel entry when it creates the CSV.
  expect(csv.spec?.replaces).toBe(OLD);
  const sub = await kubectl(["get", "subscription", "memcached-operator-sub", "-n", namespace]);
  expect(sub.status).toMatchObject({ installedCSV: NEW, currentCSV: NEW, state: "AtLatestKnown" });
  // The operator's Deployment now belongs to the new CSV.
  const deployment = await kubectl([
    "get",
    "deployment",
    "memcached-operator-controller-manager",
    "-n",
    namespace,
  ]);
  expect(deployment.metadata.labels?.["olm.owner"]).toBe(NEW);
  const pods = (await listNames("pods", namespace)).filter((n) =>
    n.startsWith("memcached-operator-catalog-"),
  );
  expect(pods).toHaveLength(1);
}

describe("real OLM: run bundle-upgrade", () => {
  it("through replaces (0.0.1 → 0.0.2): new CSV Succeeded, old CSV replaced by OLM; cleanup then leaves nothing", async () => {
    const ns = "up-replaces";
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const v1 = await pushBundle(registry, "up-replaces", "0.0.1", withoutRequiredApis);
    const v2 = await pushBundle(registry, "up-replaces", "0.0.2", (csv) => {
      withoutRequiredApis(csv);
      delete csv.metadata.annotations!["olm.skipRange"];
    });
    const run = await runBundle(v1, ns);
    expect(run.exitCode, run.stderr).toBe(0);
    const [oldPod] = (await listNames("pods", ns)).filter((n) => n.startsWith("memcached-operator-catalog-"));

    // --dry-run: every object the upgrade would create or change, accepted by the real API server
    // with OLM's CRDs; the cluster is only read.
    const addressBefore = (await kubectl(["get", "catalogsource", CATALOG, "-n", ns])).spec?.address;
    const podsBefore = await listNames("pods", ns);
    const dry = await upgrade(v2, ns, ["--dry-run", "-o", "yaml"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const kinds = [...dry.stdout.matchAll(/^kind: (\w+)$/gm)].map((m) => m[1]);
    expect(kinds).toEqual(["ConfigMap", "Pod", "Service", "CatalogSource"]);
    const newAddress = /^ {2}address: (\S+)$/m.exec(dry.stdout)?.[1];
    expect(newAddress).toMatch(/^memcached-operator-catalog-\w+\.up-replaces\.svc:50051$/);
    expect(newAddress).not.toBe(addressBefore);
    const applied = await execa("kubectl", ["apply", "--dry-run=server", "-f", "-"], {
      env: { KUBECONFIG: bed.cluster.kubeconfigPath },
      input: dry.stdout,
      reject: false,
    });
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout.trim().split("\n")).toHaveLength(kinds.length);
    expect(applied.stdout).toContain(
      "catalogsource.operators.coreos.com/memcached-operator-catalog configured (server dry run)",
    );
    expect((await kubectl(["get", "catalogsource", CATALOG, "-n", ns])).spec?.address).toBe(addressBefore);
    expect(await listNames("pods", ns)).toEqual(podsBefore);

    const up = await upgrade(v2, ns);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stdout).toContain(`memcached-operator upgraded from ${OLD} to ${NEW} in namespace ${ns}`);
    expect(up.stderr).not.toContain("warning");
    await expectUpgraded(ns);
    expect(await listNames("pods", ns)).not.toContain(oldPod);
    // The dry run printed the registry the upgrade then created.
    expect((await kubectl(["get", "catalogsource", CATALOG, "-n", ns])).spec?.address).toBe(newAddress);

    await cleanupLeavesNothing(ns, before);
  }, 900_000);

  it("through olm.skipRange (0.0.2 declares no replaces): new CSV Succeeded, old CSV replaced", async () => {
    const ns = "up-skiprange";
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const v1 = await pushBundle(registry, "up-skiprange", "0.0.1", withoutRequiredApis);
    const v2 = await pushBundle(registry, "up-skiprange", "0.0.2", (csv) => {
      withoutRequiredApis(csv);
      delete csv.spec!.replaces;
    });
    const run = await runBundle(v1, ns);
    expect(run.exitCode, run.stderr).toBe(0);
    const up = await upgrade(v2, ns, ["-o", "json"]);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({
      from: { csv: OLD, version: "0.0.1" },
      to: { csv: NEW, version: "0.0.2" },
    });
    // The skipRange covers 0.0.1 and nothing names another CSV: no warning.
    expect(up.stderr).not.toContain("warning");
    await expectUpgraded(ns);
    await cleanupLeavesNothing(ns, before);
  }, 900_000);

  it("from a Failed CSV: refused as OLM would never replace it (exit 4, nothing changed); with fail-forward allowed, OLM replaces it", async () => {
    const ns = "up-failed";
    const before = await snapshot(bed.cluster.kubeconfigPath);
    // 0.0.1's pod can never be scheduled and its Deployment gives up after 2 s: OLM marks the
    // CSV Failed (InstallCheckFailed) and keeps it so.
    const v1 = await pushBundle(registry, "up-failed", "0.0.1", (csv) => {
      withoutRequiredApis(csv);
      const deployment = deploymentOf(csv);
      deployment.spec.progressDeadlineSeconds = 2;
      deployment.spec.template.spec.nodeSelector = { "tsop.dev/no-such-node": "true" };
    });
    const v2 = await pushBundle(registry, "up-failed", "0.0.2", withoutRequiredApis);
    const run = await runBundle(v1, ns, ["--keep-on-failure"]);
    expect(run.exitCode, run.stderr).toBe(4);
    const failed = await kubectl(["get", "clusterserviceversion", OLD, "-n", ns]);
    expect(failed.status).toMatchObject({ phase: "Failed", reason: "InstallCheckFailed" });

    const beforeUpgrade = await snapshot(bed.cluster.kubeconfigPath);
    const catalogBefore = await kubectl(["get", "catalogsource", CATALOG, "-n", ns]);
    const refused = await upgrade(v2, ns);
    expect(refused.exitCode, refused.stderr).toBe(4);
    expect(refused.stderr).toContain(
      `the installed ClusterServiceVersion ${ns}/${OLD} is Failed (InstallCheckFailed`,
    );
    expect(refused.stderr).toContain("TechPreviewUnsafeFailForward");
    expect(added(beforeUpgrade, await snapshot(bed.cluster.kubeconfigPath))).toEqual([]);
    const catalogAfter = await kubectl(["get", "catalogsource", CATALOG, "-n", ns]);
    expect(catalogAfter.spec?.address).toBe(catalogBefore.spec?.address);

    // The way OLM offers out of a Failed install: fail-forward on the OperatorGroup.
    await execa(
      "kubectl",
      [
        "patch",
        "operatorgroup",
        "tsop-operatorgroup",
        "-n",
        ns,
        "--type",
        "merge",
        "-p",
        '{"spec":{"upgradeStrategy":"TechPreviewUnsafeFailForward"}}',
      ],
      { env: { KUBECONFIG: bed.cluster.kubeconfigPath } },
    );
    const up = await upgrade(v2, ns);
    expect(up.exitCode, up.stderr).toBe(0);
    await expectUpgraded(ns);
    await cleanupLeavesNothing(ns, before);
  }, 900_000);

  it("a failed upgrade with --rollback-on-failure: non-zero exit naming the stuck Subscription, catalog restored, the old version still installed", async () => {
    const ns = "up-rollback";
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const v1 = await pushBundle(registry, "up-rollback", "0.0.1", withoutRequiredApis);
    // 0.0.2 requires an API no catalog provides. Real OLM reports nothing for an upgrade it cannot
    // make: the solver keeps the installed CSV, the Subscription stays AtLatestKnown, so the
    // upgrade ends at --timeout (exit 3).
    const v2 = await pushBundle(registry, "up-rollback", "0.0.2");
    const run = await runBundle(v1, ns);
    expect(run.exitCode, run.stderr).toBe(0);
    const beforeUpgrade = await snapshot(bed.cluster.kubeconfigPath);
    const catalogBefore = await kubectl(["get", "catalogsource", CATALOG, "-n", ns]);

    const up = await upgrade(v2, ns, ["--rollback-on-failure", "--timeout", "100s"]);
    expect(up.exitCode, up.stderr).toBe(3);
    expect(up.stderr).toContain(
      `run bundle-upgrade failed while waiting for the Subscription to resolve (--timeout 1m40s)`,
    );
    expect(up.stderr).toContain(`Subscription ${ns}/memcached-operator-sub: state AtLatestKnown`);
    expect(up.stderr).toContain(`rolled CatalogSource ${CATALOG} back to the previous bundle set (${OLD})`);
    expect(up.stderr).not.toContain("OLM already created");

    // The catalog serves the previous bundle set again, from the previous registry pod, and OLM
    // is connected to it; the new registry pod, Service and ConfigMaps are gone.
    const catalog = await kubectl(["get", "catalogsource", CATALOG, "-n", ns]);
    expect(catalog.spec?.address).toBe(catalogBefore.spec?.address);
    expect(catalog.metadata.annotations).toEqual(catalogBefore.metadata.annotations);
    expect(await waitForCatalogReady(ns, catalogBefore.spec?.address as string)).toBe(true);
    expect(added(beforeUpgrade, await snapshot(bed.cluster.kubeconfigPath))).toEqual([]);
    // The old version is still installed and running.
    expect(await listNames("clusterserviceversions", ns)).toEqual([OLD]);
    const csv = await kubectl(["get", "clusterserviceversion", OLD, "-n", ns]);
    expect(csv.status?.phase).toBe("Succeeded");
    const deployment = await kubectl([
      "get",
      "deployment",
      "memcached-operator-controller-manager",
      "-n",
      ns,
    ]);
    expect(deployment.metadata.labels?.["olm.owner"]).toBe(OLD);
    expect(deployment.status?.readyReplicas).toBe(1);
    const sub = await kubectl(["get", "subscription", "memcached-operator-sub", "-n", ns]);
    expect(sub.status?.installedCSV).toBe(OLD);

    await cleanupLeavesNothing(ns, before);
  }, 900_000);
});

interface DeploymentSpec {
  spec: { progressDeadlineSeconds?: number; template: { spec: Record<string, unknown> } };
}

function deploymentOf(csv: KubeObject): DeploymentSpec {
  return (csv.spec!.install.spec.deployments as DeploymentSpec[])[0]!;
}

async function waitForCatalogReady(namespace: string, address: string): Promise<boolean> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const catalog = await kubectl(["get", "catalogsource", CATALOG, "-n", namespace]);
    const state = catalog.status?.connectionState as
      { address?: string; lastObservedState?: string } | undefined;
    if (state?.address === address && state.lastObservedState === "READY") return true;
    await new Promise((r) => setTimeout(r, 2000));
  }
  return false;
}
