// The cluster layer against tsop/testing over HTTP: error mapping (401, 403 naming the verb and
// resource), retries on 5xx/429, dependency-ordered server-side apply, and watch-based waits that
// survive dropped watches and 410 Gone, with diagnostics on timeout.
import { createServer as createHttpsServer } from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import { TimeoutError } from "../../src/common/errors.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { applyAll } from "../../src/kube/apply.js";
import { KubeClient } from "../../src/kube/client.js";
import { ForbiddenError, KubeApiError, UnauthorizedError } from "../../src/kube/errors.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { deploymentCheck, waitFor } from "../../src/kube/wait.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { selfSignedCert } from "../../src/common/x509.js";
import { testdir } from "../support/testdir.js";

let cluster: TestCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  await cluster?.stop();
  cluster = undefined;
  client = undefined;
});

async function setup(
  options: Parameters<typeof startTestCluster>[0] = {},
): Promise<{ cluster: TestCluster; client: KubeClient }> {
  cluster = await startTestCluster(options);
  client = await KubeClient.connect({
    kubeconfig: cluster.kubeconfigPath,
    env: {},
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
  });
  return { cluster, client };
}

const widgetCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        },
      },
    ],
  },
};

describe("error mapping", () => {
  it("says which verb on which resource was forbidden", async () => {
    const { cluster, client } = await setup();
    cluster.forbid({ verb: "list", resource: "deployments" });
    const err = await client.list("apps/v1", "Deployment", { namespace: "team" }).catch((e) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect(err.message).toContain(
      'forbidden: user "tsop-test" may not list deployments.apps in namespace "team"',
    );
    expect(err.hint).toContain("RBAC permission to list deployments.apps");
    cluster.forbid({ verb: "create", resource: "namespaces" });
    const err2 = await client
      .create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "x" } })
      .catch((e) => e);
    expect(err2.message).toContain("may not create namespaces at cluster scope");
  });

  it("reports expired credentials (401) with what to do", async () => {
    const { cluster } = await setup();
    const stale = cluster.kubeconfig.replace(/token: .*/, "token: expired-token");
    const dir = await testdir({ "stale.yaml": stale });
    const other = await KubeClient.connect({ kubeconfig: `${dir}/stale.yaml`, env: {} });
    const err = await other.get({ apiVersion: "v1", kind: "Namespace", name: "default" }).catch((e) => e);
    other.close();
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.message).toContain(
      `the API server at ${cluster.url} rejected the credentials of user "tsop-test" (401 Unauthorized)`,
    );
    expect(err.hint).toContain("expired");
  });

  it("retries 500s and 429s with backoff, then gives up naming the request", async () => {
    const { cluster, client } = await setup();
    cluster.faults.add({ path: "/api/v1/namespaces/default", status: 500, count: 2 });
    cluster.faults.add({ path: "/api/v1/namespaces/default", status: 429, count: 1, retryAfterSeconds: 0 });
    expect(await client.get({ apiVersion: "v1", kind: "Namespace", name: "default" })).toMatchObject({
      metadata: { name: "default" },
    });
    expect(cluster.faults.injected).toBe(3);
    cluster.faults.add({ path: "/api/v1/namespaces/default", status: 503, count: Number.POSITIVE_INFINITY });
    const err = await client.get({ apiVersion: "v1", kind: "Namespace", name: "default" }).catch((e) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err.message).toMatch(
      /the API server kept failing on get namespaces "default": 503 .*\(after 6 attempts\)/,
    );
  });
});

describe("apply", () => {
  it("applies CRDs first (waiting until Established), namespaces next, then the rest, with field manager tsop", async () => {
    const { cluster, client } = await setup({ crdEstablishDelayMs: 100 });
    const objects: KubeObject[] = [
      {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "w", namespace: "shop" },
        spec: { size: 3 },
      },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "shop" }, data: { a: "1" } },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "widget-viewer" },
        rules: [],
      },
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
      widgetCrd,
    ];
    const reporter = new MemoryReporter();
    const applied = await applyAll(client, objects, { reporter, timeoutMs: 10_000 });
    expect(applied.map((a) => `${a.ref.kind}/${a.ref.name}:${a.action}`)).toEqual([
      "CustomResourceDefinition/widgets.example.com:created",
      "Namespace/shop:created",
      "ClusterRole/widget-viewer:created",
      "Widget/w:created",
      "ConfigMap/cm:created",
    ]);
    expect(reporter.text()).toContain("CustomResourceDefinition widgets.example.com: established");
    const widget = cluster.get("example.com/v1", "Widget", "w", "shop");
    expect(widget?.metadata?.managedFields?.[0]?.manager).toBe("tsop");
    const again = await applyAll(client, objects, { reporter, timeoutMs: 10_000 });
    expect(again.every((a) => a.action === "configured")).toBe(true);
  });
});

describe("waits", () => {
  it("keep going through dropped watches and 410 Gone (relist), reporting per-object progress", async () => {
    const { cluster, client } = await setup({ workloads: { podStartMs: 300 } });
    await client.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "app" } });
    const deployment = (name: string): KubeObject => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace: "app" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: "c", image: "example.com/app:1" }] },
        },
      },
    });
    await client.apply(deployment("a"));
    await client.apply(deployment("b"));
    const dropper = setInterval(() => {
      cluster.closeWatches();
      cluster.compact();
    }, 50);
    const reporter = new MemoryReporter();
    try {
      await waitFor(
        client,
        ["a", "b"].map((name) => ({
          ref: { apiVersion: "apps/v1", kind: "Deployment", namespace: "app", name },
          check: deploymentCheck,
        })),
        { timeoutMs: 15_000, reporter, what: "deployments", relistIntervalMs: 1000 },
      );
    } finally {
      clearInterval(dropper);
    }
    expect(reporter.text()).toContain("success: Deployment app/a: available (1/1)");
    expect(reporter.text()).toContain("success: Deployment app/b: available (1/1)");
  });

  it("time out with the object's conditions, its pods' waiting reasons and the wait's budget", async () => {
    const { client } = await setup({
      workloads: { podStartMs: 10, unpullableImages: ["example.com/missing:1"] },
    });
    await client.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "app" } });
    await client.apply({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "broken", namespace: "app" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "broken" } },
        template: {
          metadata: { labels: { app: "broken" } },
          spec: { containers: [{ name: "main", image: "example.com/missing:1" }] },
        },
      },
    });
    await client.create({
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: "broken.", namespace: "app" },
      involvedObject: { apiVersion: "apps/v1", kind: "Deployment", name: "broken", namespace: "app" },
      reason: "ScalingReplicaSet",
      message: "Scaled up replica set broken-1 to 1",
      type: "Normal",
      lastTimestamp: new Date().toISOString(),
    });
    const err = await waitFor(
      client,
      [
        {
          ref: { apiVersion: "apps/v1", kind: "Deployment", namespace: "app", name: "broken" },
          check: deploymentCheck,
        },
      ],
      { timeoutMs: 1500, reporter: new MemoryReporter(), what: "the app" },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.exitCode).toBe(3);
    expect(err.message).toContain("timed out after 1.5s waiting for the app");
    expect(err.message).toContain("Deployment app/broken: 0/1 replicas available");
    expect(err.message).toMatch(/condition Available=False/);
    expect(err.message).toMatch(/container main waiting: (ErrImagePull|ImagePullBackOff)/);
    expect(err.message).toContain("event Normal ScalingReplicaSet: Scaled up replica set broken-1 to 1");
  });
});

describe("TLS", () => {
  it("verifies the server against the kubeconfig's CA, and refuses an unknown certificate", async () => {
    const { cluster, client } = await setup({ tls: true });
    expect(cluster.url.startsWith("https://")).toBe(true);
    expect(await client.get({ apiVersion: "v1", kind: "Namespace", name: "default" })).toBeDefined();
    const withoutCa = cluster.kubeconfig
      .split("\n")
      .filter((line) => !line.includes("certificate-authority"))
      .join("\n");
    const dir = await testdir({ "no-ca.yaml": withoutCa });
    const other = await KubeClient.connect({ kubeconfig: `${dir}/no-ca.yaml`, env: {} });
    const err = await other.get({ apiVersion: "v1", kind: "Namespace", name: "default" }).catch((e) => e);
    other.close();
    expect(err.message).toContain(`cannot reach the Kubernetes API server at ${cluster.url}`);
    expect(err.message).toMatch(/SELF_SIGNED|self.signed|UNABLE_TO_VERIFY/i);
  });

  it("presents the kubeconfig's client certificate", async () => {
    const server = selfSignedCert("127.0.0.1");
    const user = selfSignedCert("tsop-client-user");
    const seen: string[] = [];
    const https = createHttpsServer(
      { cert: server.cert, key: server.key, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const peer = (req.socket as import("node:tls").TLSSocket).getPeerCertificate();
        seen.push(String(peer?.subject?.CN ?? "none"));
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            kind: "APIResourceList",
            resources: [{ name: "namespaces", namespaced: false, kind: "Namespace" }],
          }),
        );
      },
    );
    await new Promise<void>((r) => https.listen(0, "127.0.0.1", r));
    const { port } = https.address() as { port: number };
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    const config = [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: c",
      "  cluster:",
      `    server: https://127.0.0.1:${port}`,
      `    certificate-authority-data: ${b64(server.cert)}`,
      "users:",
      "- name: u",
      "  user:",
      `    client-certificate-data: ${b64(user.cert)}`,
      `    client-key-data: ${b64(user.key)}`,
      "contexts:",
      "- name: c",
      "  context: {cluster: c, user: u}",
      "current-context: c",
    ].join("\n");
    const dir = await testdir({ "cert.yaml": config });
    const certClient = await KubeClient.connect({ kubeconfig: `${dir}/cert.yaml`, env: {} });
    try {
      await certClient.resource("v1", "Namespace");
      expect(seen).toContain("tsop-client-user");
    } finally {
      certClient.close();
      await new Promise<void>((r) => https.close(() => r()));
    }
  });
});

describe("in-cluster configuration", () => {
  it("uses the pod's service account token, CA and namespace when no kubeconfig exists", async () => {
    const { cluster } = await setup({ tls: true });
    const port = new URL(cluster.url).port;
    const sa = "var/run/secrets/kubernetes.io/serviceaccount";
    const root = await testdir({
      [`${sa}/token`]: cluster.token,
      [`${sa}/ca.crt`]: cluster.caCertificate ?? "",
      [`${sa}/namespace`]: "payments\n",
    });
    const home = await testdir();
    const inCluster = await KubeClient.connect({
      env: { HOME: home, KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port },
      serviceAccountRoot: root,
    });
    try {
      expect(inCluster.namespace).toBe("payments");
      expect(inCluster.server).toBe(`https://127.0.0.1:${port}`);
      expect(await inCluster.get({ apiVersion: "v1", kind: "Namespace", name: "default" })).toBeDefined();
    } finally {
      inCluster.close();
    }
  });
});

describe("proxies", () => {
  it("sends requests through the kubeconfig's proxy-url", async () => {
    const { cluster } = await setup();
    const seen: string[] = [];
    const { createServer } = await import("node:http");
    const { connect } = await import("node:net");
    // A CONNECT proxy, as HTTP(S) proxies for API servers are.
    const proxy = createServer((_req, res) => {
      res.statusCode = 405;
      res.end();
    });
    proxy.on("connect", (req, client, head) => {
      seen.push(`${req.method} ${req.url}`);
      const [host, port] = (req.url ?? "").split(":");
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const { port } = proxy.address() as { port: number };
    const config = cluster.kubeconfig.replace(
      `server: ${cluster.url}`,
      `server: ${cluster.url}\n    proxy-url: http://127.0.0.1:${port}`,
    );
    const dir = await testdir({ "proxied.yaml": config });
    const proxied = await KubeClient.connect({ kubeconfig: `${dir}/proxied.yaml`, env: {} });
    try {
      expect(await proxied.get({ apiVersion: "v1", kind: "Namespace", name: "default" })).toBeDefined();
      expect(seen).toContain(`CONNECT ${new URL(cluster.url).host}`);
    } finally {
      proxied.close();
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});
