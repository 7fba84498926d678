// `tsop olm install|status|uninstall --v1` through the domain API against tsop/testing (workloads
// mode makes the Deployments Available): the shipped asset applied with tsop's certificates in place
// of cert-manager, the refusals, status's verdict, and uninstall leaving the cluster as it was.
import { X509Certificate } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryReporter } from "../../src/common/reporter.js";
import { olmInstallV1, olmStatusV1, olmUninstallV1 } from "../../src/olm/v1/index.js";
import { loadV1Release } from "../../src/olm/v1/release.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

async function start(): Promise<{ cluster: TestCluster; base: Parameters<typeof olmInstallV1>[0] }> {
  cluster = await startTestCluster({ workloads: { podStartMs: 10, jobDurationMs: 20 } });
  return {
    cluster,
    base: {
      kubeconfig: cluster.kubeconfigPath,
      env: {},
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
      timeoutMs: 20_000,
      reporter: new MemoryReporter(),
    },
  };
}

const fromB64 = (v: unknown) => Buffer.from(String(v), "base64").toString("utf8");

/** Every object of the kinds olm install --v1 touches, as "kind ns/name" (a before/after snapshot). */
function snapshot(c: TestCluster): string[] {
  const kinds: Array<[string, string]> = [
    ["apiextensions.k8s.io/v1", "CustomResourceDefinition"],
    ["v1", "Namespace"],
    ["v1", "Secret"],
    ["v1", "ServiceAccount"],
    ["v1", "Service"],
    ["apps/v1", "Deployment"],
    ["rbac.authorization.k8s.io/v1", "ClusterRole"],
    ["rbac.authorization.k8s.io/v1", "ClusterRoleBinding"],
    ["rbac.authorization.k8s.io/v1", "Role"],
    ["rbac.authorization.k8s.io/v1", "RoleBinding"],
    ["admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"],
    ["networking.k8s.io/v1", "NetworkPolicy"],
    ["policy/v1", "PodDisruptionBudget"],
  ];
  return kinds
    .flatMap(([v, k]) => c.list(v, k).map((o) => `${k} ${o.metadata?.namespace ?? ""}/${o.metadata?.name}`))
    .sort();
}

describe("olm install --v1 (domain)", () => {
  it("applies the shipped OLM v1 with tsop-issued certificates, waits until healthy, and status says so", async () => {
    const { cluster: c, base } = await start();
    const result = await olmInstallV1(base);
    expect(result.verdict).toBe("healthy");
    expect(result.version).toBe("v1 (catalogd v1.11.0, operator-controller v1.2.0)");
    const release = await loadV1Release();
    // Everything the asset holds is there, and the two Deployments are Available.
    for (const o of [...release.crds, ...release.resources])
      expect(
        c.get(o.apiVersion, o.kind, o.metadata.name!, o.metadata.namespace),
        `${o.kind} ${o.metadata.name}`,
      ).toBeDefined();
    const rows = result.rows.filter((r) => r.kind === "Deployment").map((r) => `${r.name}: ${r.status}`);
    expect(rows).toEqual([
      "catalogd-controller-manager: Available (1/1)",
      "operator-controller-controller-manager: Available (1/1)",
    ]);

    // The certificates cert-manager would have issued: each Certificate's Secret, for its dnsNames,
    // signed by the CA that is also the webhook's caBundle.
    const ca = new X509Certificate(
      fromB64(c.get("v1", "Secret", "olmv1-ca", "olmv1-system")?.data?.["tls.crt"]),
    );
    for (const certificate of release.certificates) {
      const secret = c.get(
        "v1",
        "Secret",
        certificate.spec!.secretName as string,
        certificate.metadata.namespace,
      );
      expect(secret?.type).toBe("kubernetes.io/tls");
      const leaf = new X509Certificate(fromB64(secret?.data?.["tls.crt"]));
      expect(leaf.verify(ca.publicKey)).toBe(true);
      expect(fromB64(secret?.data?.["ca.crt"])).toBe(ca.toString());
      for (const dns of certificate.spec!.dnsNames as string[]) expect(leaf.checkHost(dns)).toBe(dns);
    }
    const webhook = c.get(
      "admissionregistration.k8s.io/v1",
      "MutatingWebhookConfiguration",
      "catalogd-mutating-webhook-configuration",
    );
    expect(
      fromB64((webhook?.webhooks as Array<{ clientConfig: { caBundle: string } }>)[0]!.clientConfig.caBundle),
    ).toBe(ca.toString());

    const status = await olmStatusV1(base);
    expect(status.verdict).toBe("healthy");
    expect(status.rows.map((r) => `${r.kind} ${r.name}`)).toContain("Secret olmv1-cert");
  }, 30_000);

  it("refuses a second install, and another version even with --force; --force repairs the same version", async () => {
    const { base } = await start();
    await olmInstallV1(base);
    await expect(olmInstallV1(base)).rejects.toThrow(
      /OLM v1 is already installed[\s\S]*Deployment olmv1-system\/catalogd-controller-manager/,
    );
    const repaired = await olmInstallV1({ ...base, force: true });
    expect(repaired.verdict).toBe("healthy");
  }, 30_000);

  it("refuses to install over OLM v1 at another version, --force or not, and creates nothing", async () => {
    const { cluster: c, base } = await start();
    c.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "olmv1-system" } });
    c.create({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "operator-controller-controller-manager", namespace: "olmv1-system" },
      spec: {
        selector: { matchLabels: { app: "oc" } },
        template: {
          metadata: { labels: { app: "oc" } },
          spec: {
            containers: [
              { name: "manager", image: "quay.io/operator-framework/operator-controller:v1.11.0" },
            ],
          },
        },
      },
    });
    // The namespace controller adds its default ServiceAccount: settled before the snapshot.
    await c.waitFor("v1", "ServiceAccount", "default", "olmv1-system", (o) => o !== undefined);
    const before = snapshot(c);
    for (const force of [false, true])
      await expect(olmInstallV1({ ...base, force })).rejects.toThrow(
        "OLM v1 is installed at another version (catalogd unknown, operator-controller v1.11.0); tsop installs catalogd v1.11.0, operator-controller v1.2.0",
      );
    expect(snapshot(c)).toEqual(before);
  }, 30_000);

  it("a failed install (catalogd's image cannot be pulled) removes everything it created", async () => {
    const { cluster: c, base } = await start();
    c.markImageUnpullable(/catalogd:/);
    const before = snapshot(c);
    await expect(olmInstallV1({ ...base, timeoutMs: 3_000 })).rejects.toThrow(
      /installing OLM v1 \(catalogd v1.11.0, operator-controller v1.2.0\) failed[\s\S]*catalogd-controller-manager[\s\S]*the cluster was left as it was before the install/,
    );
    expect(snapshot(c)).toEqual(before);
  }, 30_000);

  it("status is degraded when a component is missing, absent when none is there", async () => {
    const { base } = await start();
    expect((await olmStatusV1(base)).verdict).toBe("absent");
    await olmInstallV1(base);
    const { connect } = await import("../../src/kube/connect.js");
    const { client } = await connect(base);
    await client.delete({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "olmv1-system",
      name: "operator-controller-controller-manager",
    });
    client.close();
    const status = await olmStatusV1(base);
    expect(status.verdict).toBe("degraded");
    expect(status.rows.find((r) => r.name === "operator-controller-controller-manager")?.status).toBe(
      "Missing",
    );
  }, 30_000);

  it("uninstall refuses while a ClusterCatalog remains; --force removes it first, then everything install created", async () => {
    const { cluster: c, base } = await start();
    const before = snapshot(c);
    await olmInstallV1(base);
    c.create({
      apiVersion: "olm.operatorframework.io/v1",
      kind: "ClusterCatalog",
      metadata: { name: "my-catalog" },
      spec: { source: { type: "Image", image: { ref: "127.0.0.1:5000/catalog:v1" } } },
    });
    await expect(olmUninstallV1(base)).rejects.toThrow(
      /ClusterExtensions or ClusterCatalogs remain[\s\S]*ClusterCatalog my-catalog/,
    );
    const result = await olmUninstallV1({ ...base, force: true });
    expect(result.removedOperators).toEqual(["ClusterCatalog my-catalog"]);
    expect(snapshot(c)).toEqual(before);
    await expect(olmUninstallV1(base)).rejects.toThrow("OLM v1 is not installed in this cluster");
  }, 30_000);
});
