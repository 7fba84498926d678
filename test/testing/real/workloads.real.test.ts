// The real control plane with workloads: kube-controller-manager, kube-scheduler and kwok make a
// Deployment Available and a Job Complete, finish namespace deletion, collect garbage, and the
// service-account machinery is real (RBAC on: a token is refused until a RoleBinding grants it).
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CertificatesV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1Deployment,
} from "@kubernetes/client-node";
import { execa } from "execa";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealTestCluster, startTestCluster } from "../../../src/testing/index.js";

let cluster: RealTestCluster;
let kc: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let startedInMs: number;

beforeAll(async () => {
  const started = Date.now();
  cluster = await startTestCluster({ controlPlane: "real", workloads: true, namespaces: ["apps"] });
  startedInMs = Date.now() - started;
  kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
});
afterAll(async () => {
  await cluster?.stop();
});

async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: unknown) => (e instanceof ApiException ? e.code : Promise.reject(e)),
  );

const deployment = (name: string): V1Deployment => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "web", image: "registry.example/web:1" }] },
    },
  },
});

describe('startTestCluster({ controlPlane: "real", workloads: true })', () => {
  it("hands the cluster over settled: every namespace already has its default ServiceAccount and kube-root-ca.crt", async () => {
    // controller-manager adds both to each namespace after start; a test that snapshots the cluster
    // first must not see them appear later (olm-lifecycle.real once saw four kube-root-ca.crt).
    const namespaces = (await core.listNamespace()).items.map((ns) => ns.metadata!.name!);
    expect(namespaces).toEqual(expect.arrayContaining(["default", "kube-system", "kube-public", "apps"]));
    for (const namespace of namespaces) {
      expect(await status(core.readNamespacedServiceAccount({ name: "default", namespace })), namespace).toBe(
        200,
      );
      expect(
        await status(core.readNamespacedConfigMap({ name: "kube-root-ca.crt", namespace })),
        namespace,
      ).toBe(200);
    }
  });

  it("runs controller-manager, scheduler and kwok with one Ready fake Node", async () => {
    expect(cluster.processes().map((p) => p.name)).toEqual([
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kwok",
    ]);
    expect(startedInMs).toBeLessThan(45_000);
    const nodes = await core.listNode();
    expect(nodes.items.map((n) => n.metadata?.name)).toEqual(["kwok-node-0"]);
    expect(nodes.items[0]!.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("makes a Deployment Available: ReplicaSet, scheduled pods Running and Ready on the kwok Node", async () => {
    await apps.createNamespacedDeployment({ namespace: "apps", body: deployment("web") });
    const available = await eventually(
      () => apps.readNamespacedDeployment({ namespace: "apps", name: "web" }),
      (d) =>
        d.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") === true &&
        d.status?.readyReplicas === 2,
    );
    expect(available.status?.availableReplicas).toBe(2);
    const pods = await core.listNamespacedPod({ namespace: "apps", labelSelector: "app=web" });
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items) {
      expect(pod.spec?.nodeName).toBe("kwok-node-0");
      expect(pod.status?.phase).toBe("Running");
      expect(pod.metadata?.ownerReferences?.[0]?.kind).toBe("ReplicaSet");
    }
  });

  it("collects garbage: deleting the Deployment removes its ReplicaSet and pods", async () => {
    await apps.deleteNamespacedDeployment({
      namespace: "apps",
      name: "web",
      propagationPolicy: "Background",
    });
    await eventually(
      () => core.listNamespacedPod({ namespace: "apps", labelSelector: "app=web" }),
      (list) => list.items.length === 0,
    );
    const sets = await apps.listNamespacedReplicaSet({ namespace: "apps", labelSelector: "app=web" });
    expect(sets.items).toEqual([]);
  });

  it("completes a Job (kwok plays its pod to Succeeded)", async () => {
    const batch = kc.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: "apps",
      body: {
        metadata: { name: "once" },
        spec: {
          template: {
            spec: { restartPolicy: "Never", containers: [{ name: "run", image: "registry.example/job:1" }] },
          },
        },
      },
    });
    const job = await eventually(
      () => batch.readNamespacedJob({ namespace: "apps", name: "once" }),
      (j) => j.status?.conditions?.some((c) => c.type === "Complete" && c.status === "True") === true,
    );
    expect(job.status?.succeeded).toBe(1);
  });

  it("finishes namespace deletion, contents included", async () => {
    await core.createNamespace({ body: { metadata: { name: "doomed" } } });
    await apps.createNamespacedDeployment({ namespace: "doomed", body: deployment("inside") });
    await core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "cm" } } });
    await eventually(
      () => core.listNamespacedPod({ namespace: "doomed" }),
      (list) => list.items.length === 2 && list.items.every((p) => p.status?.phase === "Running"),
    );
    await core.deleteNamespace({ name: "doomed" });
    await eventually(
      () => status(core.readNamespace({ name: "doomed" })),
      (code) => code === 404,
    );
  });

  it("issues service-account tokens that RBAC refuses until a RoleBinding grants access", async () => {
    await core.createNamespacedServiceAccount({ namespace: "apps", body: { metadata: { name: "reader" } } });
    const request = await core.createNamespacedServiceAccountToken({
      namespace: "apps",
      name: "reader",
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const token = request.status?.token;
    expect(token).toBeTruthy();
    const asReader = new KubeConfig();
    asReader.loadFromOptions({
      clusters: [
        { name: "c", server: cluster.url, caData: Buffer.from(cluster.caCertificate).toString("base64") },
      ],
      users: [{ name: "reader", token }],
      contexts: [{ name: "x", cluster: "c", user: "reader" }],
      currentContext: "x",
    });
    const readerCore = asReader.makeApiClient(CoreV1Api);
    expect(await status(readerCore.listNamespacedConfigMap({ namespace: "apps" }))).toBe(403);
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRoleBinding({
      namespace: "apps",
      body: {
        metadata: { name: "reader-view" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "ServiceAccount", name: "reader", namespace: "apps" }],
      },
    });
    expect(
      await eventually(
        () => status(readerCore.listNamespacedConfigMap({ namespace: "apps" })),
        (c) => c === 200,
        10_000,
      ),
    ).toBe(200);
    expect(await status(readerCore.listNamespacedSecret({ namespace: "apps" }))).toBe(403);
  });

  it("fills legacy service-account token Secrets (the token controller signs with the cluster's key)", async () => {
    await core.createNamespacedSecret({
      namespace: "apps",
      body: {
        metadata: { name: "reader-token", annotations: { "kubernetes.io/service-account.name": "reader" } },
        type: "kubernetes.io/service-account-token",
      },
    });
    const secret = await eventually(
      () => core.readNamespacedSecret({ namespace: "apps", name: "reader-token" }),
      (s) => Boolean(s.data?.token),
    );
    expect(Buffer.from(secret.data!["ca.crt"]!, "base64").toString()).toBe(cluster.caCertificate);
    const review = await kc.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: "apps" });
    expect(review.items.map((c) => c.metadata?.name)).toContain("kube-root-ca.crt");
  });

  it("signs an approved CertificateSigningRequest with the cluster CA (--cluster-signing-*)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tsop-csr-"));
    try {
      // openssl as an independent maker of the PKCS#10 request.
      await execa("openssl", [
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-subj",
        "/O=auditors/CN=bob",
        "-keyout",
        join(dir, "bob.key"),
        "-out",
        join(dir, "bob.csr"),
      ]);
      const request = await readFile(join(dir, "bob.csr"));
      const certificates = kc.makeApiClient(CertificatesV1Api);
      await certificates.createCertificateSigningRequest({
        body: {
          metadata: { name: "bob" },
          spec: {
            request: request.toString("base64"),
            signerName: "kubernetes.io/kube-apiserver-client",
            usages: ["client auth"],
          },
        },
      });
      const approve = await execa(
        "kubectl",
        ["--kubeconfig", cluster.kubeconfigPath, "certificate", "approve", "bob"],
        {
          reject: false,
          env: { HOME: dir },
        },
      );
      expect(approve.exitCode, approve.stderr).toBe(0);
      const signed = await eventually(
        () => certificates.readCertificateSigningRequest({ name: "bob" }),
        (csr) => Boolean(csr.status?.certificate),
      );
      const cert = new X509Certificate(Buffer.from(signed.status!.certificate!, "base64"));
      expect(cert.subject).toBe("O=auditors\nCN=bob");
      expect(cert.checkIssued(new X509Certificate(cluster.caCertificate))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
