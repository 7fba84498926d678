// `tsop run bundle` variants against real OLM v0.28.0 on the real test bed (one bed for the file):
// a Pod Security "restricted" namespace with a scaffolded operator whose namespaced and cluster
// permissions are checked with SubjectAccessReviews; OwnNamespace and SingleNamespace groups;
// an unsupported install mode; --dry-run output the real server accepts; a minKubeVersion above
// the server's; a pull secret for a registry that requires it; an operator image the cluster
// cannot pull. The oracles are the real server (admission, RBAC, kubectl) and OLM's own status.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaffoldWithNamespacedRbac, tsop } from "../bundle/helpers.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { testdir } from "../support/testdir.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { leftovers, pushBundle, snapshot, withoutRequiredApis } from "./bed.js";
import { PROVIDER_CSV, PROVIDER_PACKAGE, providerCatalog, pushProviderBundle } from "./provider-catalog.js";

const UNPULLABLE = "registry.example.com/memcached-operator-unpullable:v0.0.1";
const CSV = "memcached-operator.v0.0.1";

let bed: OlmBed;
let registry: TestRegistry;
let kubeconfig: string[];
let env: Record<string, string>;

beforeAll(async () => {
  registry = await startRegistry();
  bed = await startOlmBed({
    namespaces: ["psa", "own", "single", "watched", "modes", "dry", "minkube", "secret", "pull", "deps"],
    unpullableImages: [UNPULLABLE],
  });
  kubeconfig = ["--kubeconfig", bed.cluster.kubeconfigPath];
  env = { KUBECONFIG: bed.cluster.kubeconfigPath };
}, 600_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
}, 120_000);

async function kubectl(args: string[], input?: string) {
  return execa("kubectl", args, { env, reject: false, ...(input !== undefined ? { input } : {}) });
}

async function getJson(args: string[]): Promise<KubeObject & { items?: KubeObject[] }> {
  const r = await kubectl(["get", ...args, "-o", "json"]);
  if (r.exitCode !== 0) throw new Error(`kubectl get ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout) as KubeObject & { items?: KubeObject[] };
}

function runBundle(image: string, namespace: string, extra: string[], timeout = "5m") {
  return runTsop(["run", "bundle", image, "-n", namespace, "--timeout", timeout, ...extra, ...kubeconfig], {
    timeoutMs: 420_000,
  });
}

async function cleanup(pkg: string, namespace: string, deleteCrds = true) {
  const r = await runTsop(
    ["cleanup", pkg, "-n", namespace, ...(deleteCrds ? ["--delete-crds"] : []), ...kubeconfig],
    { timeoutMs: 330_000 },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
}

/** A SubjectAccessReview created as admin (kubectl), answered by the real RBAC authorizer. */
async function allowed(sa: string, attrs: Record<string, string>): Promise<boolean> {
  const [ns, name] = sa.split("/");
  const review = {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: `system:serviceaccount:${ns}:${name}`,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
      resourceAttributes: attrs,
    },
  };
  const r = await kubectl(["create", "-f", "-", "-o", "json"], JSON.stringify(review));
  expect(r.exitCode, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { status: { allowed: boolean } }).status.allowed === true;
}

/** The registry pod tsop created in `namespace` (label from src/olm/run/names.ts). */
async function registryPod(namespace: string): Promise<KubeObject> {
  const pods = await getJson(["pods", "-n", namespace, "-l", "tsop.dev/component=registry"]);
  expect(pods.items, `registry pods in ${namespace}`).toHaveLength(1);
  return pods.items![0]!;
}

function installModes(...types: string[]) {
  return (csv: KubeObject) => {
    withoutRequiredApis(csv);
    csv.spec!.installModes = ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"].map(
      (type) => ({ type, supported: types.includes(type) }),
    );
  };
}

describe("run bundle on real OLM: namespaces, permissions and install modes", () => {
  it("Pod Security restricted namespace: registry pod admitted; scaffolded operator's namespaced and cluster permissions hold (SubjectAccessReview)", async () => {
    // Issue 17: an operator with a namespaced @Rbac rule and cluster rules, built by tsop.
    const dir = await testdir();
    await scaffoldWithNamespacedRbac(dir);
    expect((await tsop(dir, ["generate"])).exitCode).toBe(0);
    const bundled = await tsop(dir, ["bundle", "--version", "0.0.1"]);
    expect(bundled.exitCode, bundled.stderr).toBe(0);
    const image = `${registry.host}/nsperm-bundle:v0.0.1`;
    const pushed = await tsop(dir, ["bundle", "push", image, "--plain-http"]);
    expect(pushed.exitCode, pushed.stderr).toBe(0);

    const label = await kubectl([
      "label",
      "namespace",
      "psa",
      "pod-security.kubernetes.io/enforce=restricted",
      "pod-security.kubernetes.io/enforce-version=latest",
    ]);
    expect(label.exitCode, label.stderr).toBe(0);
    // The guard: the real Pod Security admission rejects a non-compliant pod in this namespace.
    const rejected = await kubectl(
      ["create", "--dry-run=server", "-n", "psa", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "noncompliant" },
        spec: { containers: [{ name: "c", image: "quay.io/operator-framework/opm:v1.47.0" }] },
      }),
    );
    expect(rejected.stderr).toContain('violates PodSecurity "restricted:latest"');

    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = await runBundle(image, "psa", ["--plain-http"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const pod = await registryPod("psa");
    expect(pod.status?.phase).toBe("Running");
    const csv = await getJson(["csv", "-n", "psa", "nsperm-operator.v0.0.1"]);
    expect(csv.status?.phase).toBe("Succeeded");

    const sa = "psa/nsperm-operator-controller-manager";
    // Namespaced permission (a Role in the CSV's permissions) in the operator's namespace.
    expect(await allowed(sa, { namespace: "psa", verb: "list", resource: "configmaps" })).toBe(true);
    // Cluster permission (clusterPermissions): memcacheds everywhere.
    expect(await allowed(sa, { verb: "list", group: "cache.example.com", resource: "memcacheds" })).toBe(
      true,
    );
    // Never granted: reading secrets, deleting memcacheds.
    expect(await allowed(sa, { namespace: "psa", verb: "get", resource: "secrets" })).toBe(false);
    expect(await allowed(sa, { verb: "delete", group: "cache.example.com", resource: "memcacheds" })).toBe(
      false,
    );

    await cleanup("nsperm-operator", "psa");
    const left = await leftovers(bed.cluster.kubeconfigPath, before);
    const labels = await kubectl([
      "get",
      "clusterroles,clusterrolebindings",
      "-l",
      "olm.managed",
      "--show-labels",
    ]);
    expect(left, labels.stdout).toEqual([]);
  }, 900_000);

  it("OwnNamespace and SingleNamespace: OperatorGroup targets, CSV Succeeded, copied only into the watched namespace", async () => {
    const image = await pushBundle(registry, "memcached-modes", "0.0.1", withoutRequiredApis);
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const [own, single] = await Promise.all([
      runBundle(image, "own", ["--plain-http", "--install-mode", "OwnNamespace"]),
      runBundle(image, "single", ["--plain-http", "--install-mode", "SingleNamespace=watched"]),
    ]);
    expect(own.exitCode, own.stderr).toBe(0);
    expect(single.exitCode, single.stderr).toBe(0);

    const groups = await getJson(["operatorgroups", "-A"]);
    const group = (ns: string) => groups.items!.find((g) => g.metadata.namespace === ns);
    expect(group("own")?.spec?.targetNamespaces).toEqual(["own"]);
    expect(group("own")?.status?.namespaces).toEqual(["own"]);
    expect(group("single")?.spec?.targetNamespaces).toEqual(["watched"]);
    expect(group("single")?.status?.namespaces).toEqual(["watched"]);

    const csvs = (await getJson(["csv", "-A"])).items!.filter((c) => c.metadata.name === CSV);
    const where = Object.fromEntries(csvs.map((c) => [c.metadata.namespace, c]));
    expect(Object.keys(where).sort()).toEqual(["own", "single", "watched"]);
    expect(where.own?.status?.phase).toBe("Succeeded");
    expect(where.single?.status?.phase).toBe("Succeeded");
    // OLM's copy in the watched namespace; none for OwnNamespace (its target is its own namespace).
    expect(where.watched?.metadata.labels?.["olm.copiedFrom"]).toBe("single");
    expect(where.watched?.status?.reason).toBe("Copied");
    // OLM tells the operator what to watch.
    const deployment = await getJson(["deployment", "-n", "single", "memcached-operator-controller-manager"]);
    expect(deployment.spec?.template?.metadata?.annotations?.["olm.targetNamespaces"]).toBe("watched");

    // OLM's catalog operator connected to the registry pod's Service and opm answered it.
    const catalog = (await getJson(["catalogsources", "-n", "own"])).items![0]!;
    const service = (await getJson(["services", "-n", "own", "-l", "tsop.dev/component=registry"]))
      .items![0]!;
    expect(catalog.status?.connectionState).toMatchObject({
      lastObservedState: "READY",
      address: `${service.metadata.name}.own.svc:50051`,
    });

    await cleanup("memcached-operator", "own", false);
    await cleanup("memcached-operator", "single");
    expect(await leftovers(bed.cluster.kubeconfigPath, before)).toEqual([]);
  }, 900_000);

  it("an install mode the CSV does not support: refused before anything is created (exit 2)", async () => {
    const image = await pushBundle(registry, "memcached-allonly", "0.0.1", installModes("AllNamespaces"));
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = await runBundle(image, "modes", ["--plain-http", "--install-mode", "OwnNamespace"]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `ClusterServiceVersion "${CSV}" does not support install mode OwnNamespace (it supports: AllNamespaces)`,
    );
    expect(run.stderr).toContain("--install-mode");
    expect(await leftovers(bed.cluster.kubeconfigPath, before, 0)).toEqual([]);
  }, 300_000);

  it("--dry-run prints objects the real server accepts (kubectl apply --dry-run=server)", async () => {
    const image = await pushBundle(registry, "memcached-dry", "0.0.1", withoutRequiredApis);
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const dry = await runBundle(image, "dry", ["--plain-http", "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const kinds = [...dry.stdout.matchAll(/^kind: (\w+)$/gm)].map((m) => m[1]);
    expect(kinds).toEqual(["CatalogSource", "ConfigMap", "Pod", "Service", "OperatorGroup", "Subscription"]);
    const applied = await kubectl(["apply", "--dry-run=server", "-f", "-"], dry.stdout);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout.trim().split("\n")).toHaveLength(kinds.length);
    expect(applied.stdout).toContain("(server dry run)");
    expect(await leftovers(bed.cluster.kubeconfigPath, before, 0)).toEqual([]);
  }, 300_000);

  it("spec.minKubeVersion above the server's: OLM's RequirementsNotMet verdict, exit 4 at once, nothing left", async () => {
    const image = await pushBundle(registry, "memcached-minkube", "0.0.1", (csv) => {
      withoutRequiredApis(csv);
      csv.spec!.minKubeVersion = "1.99.0";
    });
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const started = Date.now();
    const run = await runBundle(image, "minkube", ["--plain-http", "--install-mode", "OwnNamespace"]);
    expect(run.exitCode, run.stderr).toBe(4);
    expect(run.stderr).toContain("waiting for the ClusterServiceVersion to succeed");
    expect(run.stderr).toContain("RequirementsNotMet");
    // OLM's own words (olm-operator's requirement check against the real /version).
    expect(run.stderr).toMatch(
      /CSV version requirement not met: minKubeVersion \(1\.99\.0\) > server version \(v?1\.34\.4\)/,
    );
    expect(run.stderr).toContain("lower minKubeVersion in the CSV");
    // Not a timeout: tsop stops on OLM's verdict instead of waiting out --timeout (5m).
    expect(Date.now() - started).toBeLessThan(240_000);
    expect(await leftovers(bed.cluster.kubeconfigPath, before)).toEqual([]);
  }, 600_000);

  it("--pull-secret-name: the secret reaches the registry pod, the CatalogSource and OLM's unpack pull from a registry that requires it", async () => {
    const authRegistry = await startRegistry({ auth: "htpasswd", tls: true });
    try {
      const dir = await testdir();
      const auth = join(dir, "auth.json");
      const [user, password] = Object.entries(authRegistry.users)[0]!;
      const basic = Buffer.from(`${user}:${password}`).toString("base64");
      await writeFile(auth, JSON.stringify({ auths: { [authRegistry.host]: { auth: basic } } }));
      const image = await pushBundle(authRegistry, "memcached-private", "0.0.1", withoutRequiredApis, [
        "--registry-config",
        auth,
        "--ca-file",
        authRegistry.caFile!,
      ]);
      const secret = await kubectl([
        "create",
        "secret",
        "docker-registry",
        "regcred",
        "-n",
        "secret",
        `--docker-server=${authRegistry.host}`,
        `--docker-username=${user}`,
        `--docker-password=${password}`,
      ]);
      expect(secret.exitCode, secret.stderr).toBe(0);
      const before = await snapshot(bed.cluster.kubeconfigPath);
      const run = await runBundle(image, "secret", [
        "--pull-secret-name",
        "regcred",
        "--registry-config",
        auth,
        "--skip-tls-verify",
        "--install-mode",
        "OwnNamespace",
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      const pod = await registryPod("secret");
      expect(pod.spec?.imagePullSecrets).toEqual([{ name: "regcred" }]);
      const catalogs = (await getJson(["catalogsources", "-n", "secret"])).items!;
      expect(catalogs.map((c) => c.spec?.secrets)).toEqual([["regcred"]]);
      // OLM's bundle-unpack Job pulls the bundle with the CatalogSource's secrets.
      const jobs = (await getJson(["jobs", "-n", "secret"])).items!;
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) {
        expect(job.spec?.template?.spec?.imagePullSecrets).toContainEqual({ name: "regcred" });
      }
      expect((await getJson(["csv", "-n", "secret", CSV])).status?.phase).toBe("Succeeded");
      await cleanup("memcached-operator", "secret");
      expect(await leftovers(bed.cluster.kubeconfigPath, before)).toEqual([]);
    } finally {
      await authRegistry.stop();
    }
  }, 900_000);

  it("a required API from another package in a catalog of the cluster: real resolution installs both", async () => {
    const image = await pushBundle(registry, "memcached-requires-dep", "0.0.1");
    const provider = await pushProviderBundle(registry);
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const catalog = (await providerCatalog(provider, "deps")).map((o) => JSON.stringify(o)).join("\n");
    const applied = await kubectl(["apply", "-f", "-"], catalog);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const ready = await kubectl([
      "wait",
      "catalogsource/cert-catalog",
      "-n",
      "deps",
      "--for=jsonpath={.status.connectionState.lastObservedState}=READY",
      "--timeout=180s",
    ]);
    expect(ready.exitCode, ready.stderr).toBe(0);

    const run = await runBundle(image, "deps", ["--plain-http", "--install-mode", "OwnNamespace"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`also installs ${PROVIDER_CSV}`);
    const csvs = (await getJson(["csv", "-n", "deps"])).items!;
    const phase = (name: string) => csvs.find((c) => c.metadata.name === name)?.status?.phase;
    expect(phase(CSV)).toBe("Succeeded");
    expect(phase(PROVIDER_CSV)).toBe("Succeeded");
    // OLM subscribed to the provider from the cluster's catalog.
    const subs = (await getJson(["subscriptions", "-n", "deps"])).items!;
    expect(subs.find((s) => s.spec?.name === PROVIDER_PACKAGE)?.spec?.source).toBe("cert-catalog");

    // cleanup --delete-crds removes tsop's install and the CRDs the bundle owns; the API it
    // requires belongs to the other operator and stays, with that operator still running.
    const first = await cleanup("memcached-operator", "deps");
    expect(first.stdout + first.stderr).toMatch(/tsop-operatorgroup.*still used by Subscription/);
    expect((await kubectl(["get", "crd", "certificates.cert.example.com"])).exitCode).toBe(0);
    const remaining = (await getJson(["csv", "-n", "deps"])).items!;
    expect(remaining.map((c) => [c.metadata.name, c.status?.phase])).toEqual([[PROVIDER_CSV, "Succeeded"]]);

    // The user then removes the dependency OLM installed and the catalog they made, and runs
    // cleanup again for the OperatorGroup it kept.
    const providerSub = subs.find((s) => s.spec?.name === PROVIDER_PACKAGE)?.metadata.name ?? "";
    for (const args of [
      ["-n", "deps", "subscription", providerSub],
      ["-n", "deps", "csv", PROVIDER_CSV],
      ["-n", "deps", "catalogsource,service,pod,configmap", "cert-catalog"],
      ["crd", "certificates.cert.example.com"],
    ]) {
      const deleted = await kubectl(["delete", ...args, "--wait=true"]);
      expect(deleted.exitCode, deleted.stderr).toBe(0);
    }
    await cleanup("memcached-operator", "deps");
    // OLM's Operator object for the dependency (OLM never deletes these).
    expect(
      (await kubectl(["delete", "operator", `${PROVIDER_PACKAGE}.deps`, "--ignore-not-found"])).exitCode,
    ).toBe(0);
    expect(await leftovers(bed.cluster.kubeconfigPath, before)).toEqual([]);
  }, 900_000);

  it("an operator image the cluster cannot pull: the pod and image named, a hint, non-zero exit within --timeout", async () => {
    const image = await pushBundle(registry, "memcached-unpullable", "0.0.1", (csv) => {
      withoutRequiredApis(csv);
      const deployment = (csv.spec!.install.spec.deployments as Array<{ spec: KubeObject["spec"] }>)[0]!;
      deployment.spec!.template.spec.containers[0].image = UNPULLABLE;
    });
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const started = Date.now();
    const run = await runBundle(image, "pull", ["--plain-http", "--install-mode", "OwnNamespace"], "150s");
    const elapsed = Date.now() - started;
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain("waiting for the ClusterServiceVersion to succeed (--timeout 2m30s)");
    expect(run.stderr).toMatch(/pod memcached-operator-controller-manager-[a-z0-9]+-[a-z0-9]+: Pending/);
    expect(run.stderr).toContain(
      `container manager waiting: ImagePullBackOff (Back-off pulling image "${UNPULLABLE}"); image ${UNPULLABLE}`,
    );
    expect(run.stderr).toContain("the cluster cannot pull the operator's image");
    expect(elapsed).toBeLessThan(150_000 + 90_000);
    expect(await leftovers(bed.cluster.kubeconfigPath, before)).toEqual([]);
  }, 600_000);
});
