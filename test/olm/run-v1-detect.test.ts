// Which OLM a run command talks to, against tsop/testing's API server (whose discovery serves what
// its CRDs define): v1 only when ClusterExtension and ClusterCatalog are served and OLM v0's
// CatalogSource is not; an explicit --olm wins without asking; requireOlmV1 names what is missing.
import { afterEach, describe, expect, it } from "vitest";
import { MemoryReporter } from "../../src/common/reporter.js";
import { KubeClient } from "../../src/kube/client.js";
import { chooseOlm, requireOlmV1 } from "../../src/olm/run/v1/detect.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

function crd(group: string, kind: string, version: string, scope: "Cluster" | "Namespaced") {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

const V1_CRDS = [
  crd("olm.operatorframework.io", "ClusterExtension", "v1", "Cluster"),
  crd("olm.operatorframework.io", "ClusterCatalog", "v1", "Cluster"),
];
const V0_CRD = crd("operators.coreos.com", "CatalogSource", "v1alpha1", "Namespaced");

async function clusterWith(crds: object[]) {
  cluster = await startTestCluster();
  const client = await KubeClient.connect({ kubeconfig: cluster.kubeconfigPath, env: {} });
  for (const c of crds) await client.create(c as never);
  client.close();
  return { kubeconfig: cluster.kubeconfigPath, env: {}, reporter: new MemoryReporter() };
}

describe("chooseOlm", () => {
  it("is v1 when only OLM v1's APIs are served, and says so", async () => {
    const options = await clusterWith(V1_CRDS);
    expect(await chooseOlm(options)).toBe("v1");
    expect(options.reporter.lines.map((l) => l.message).join("\n")).toContain("using OLM v1");
  });

  it("is v0 when OLM v0's CatalogSource is served too, and when neither is", async () => {
    expect(await chooseOlm(await clusterWith([...V1_CRDS, V0_CRD]))).toBe("v0");
    await cluster!.stop();
    expect(await chooseOlm(await clusterWith([]))).toBe("v0");
  });

  it("is v0 with only one of OLM v1's APIs", async () => {
    expect(await chooseOlm(await clusterWith([V1_CRDS[0]!]))).toBe("v0");
  });

  it("takes --olm as given, without a cluster", async () => {
    const reporter = new MemoryReporter();
    expect(await chooseOlm({ olm: "v1", kubeconfig: "/nonexistent", reporter })).toBe("v1");
    expect(await chooseOlm({ dryRun: true, kubeconfig: "/nonexistent", reporter })).toBe("v0");
  });
});

describe("requireOlmV1", () => {
  it("names the OLM v1 APIs the cluster does not serve", async () => {
    const options = await clusterWith([V1_CRDS[1]!]);
    const client = await KubeClient.connect({ kubeconfig: options.kubeconfig, env: {} });
    try {
      await expect(requireOlmV1(client)).rejects.toThrow(
        "OLM v1 is not installed in this cluster: ClusterExtension (olm.operatorframework.io/v1) not served",
      );
    } finally {
      client.close();
    }
  });
});
