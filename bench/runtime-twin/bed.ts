// One fresh bed per measured run: the rig's etcd and kube-apiserver (nothing else: no controller
// -manager, so nothing but the benchmark and the operator talks to the server), the Widget CRD, the
// namespaces, an audit log of the operator's user only, and a kubeconfig for that user (a client
// certificate in system:masters, pointed at the apiserver itself, not at the test kit's fault proxy).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRealCluster } from "../../src/testing/real/index.js";
import type { RealTestCluster } from "../../src/testing/real/types.js";
import { rigBinary } from "../side-by-side.js";
import { BenchApi } from "./api.js";

/** The user both operators authenticate as; the audit policy logs this user only. */
export const OPERATOR_USER = "bench-operator";

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    users: ["${OPERATOR_USER}"]
  - level: None
`;

const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.bench.tsop.dev" },
  spec: {
    group: "bench.tsop.dev",
    scope: "Namespaced",
    names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { data: { type: "string" } } },
              status: { type: "object", properties: { observed: { type: "string" } } },
            },
          },
        },
      },
    ],
  },
};

export interface Bed {
  api: BenchApi;
  auditLog: string;
  operatorKubeconfig: string;
  /** Where the operator's log goes. */
  dir: string;
  pids: { apiserver: number; etcd: number };
  stop(): Promise<void>;
}

export async function startBed(namespaces: readonly string[]): Promise<Bed> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-bench-runtime-"));
  const auditPolicy = join(dir, "audit-policy.yaml");
  const auditLog = join(dir, "audit.log");
  await writeFile(auditPolicy, AUDIT_POLICY);
  let cluster: RealTestCluster | undefined;
  try {
    cluster = await startRealCluster({
      controlPlane: "real",
      binaries: { etcd: rigBinary("etcd"), "kube-apiserver": rigBinary("kube-apiserver") },
      namespaces: [...namespaces],
      args: { "kube-apiserver": { "audit-policy-file": auditPolicy, "audit-log-path": auditLog } },
    });
    const api = new BenchApi({ url: cluster.apiserverUrl, ca: cluster.caCertificate, token: cluster.token });
    await installCrd(api);
    const operatorKubeconfig = join(dir, "operator.kubeconfig");
    await writeFile(
      operatorKubeconfig,
      cluster
        .kubeconfigFor(OPERATOR_USER, ["system:masters"])
        .replace(`server: ${cluster.url}`, `server: ${cluster.apiserverUrl}`),
      { mode: 0o600 },
    );
    const pid = (name: string) => cluster!.processes().find((p) => p.name === name)!.pid;
    const running = cluster;
    return {
      api,
      auditLog,
      operatorKubeconfig,
      dir,
      pids: { apiserver: pid("kube-apiserver"), etcd: pid("etcd") },
      async stop() {
        api.close();
        await running.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function installCrd(api: BenchApi): Promise<void> {
  await api.send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", WIDGET_CRD);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const crd = await api.send(
      "GET",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${WIDGET_CRD.metadata.name}`,
    );
    const conditions =
      (crd.body.status as { conditions?: Array<{ type: string; status: string }> })?.conditions ?? [];
    const established = conditions.some((c) => c.type === "Established" && c.status === "True");
    if (
      established &&
      (await api.send("GET", "/apis/bench.tsop.dev/v1/widgets?limit=1").then(
        () => true,
        () => false,
      ))
    )
      return;
    if (Date.now() > deadline) throw new Error("the Widget CRD was not established within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
