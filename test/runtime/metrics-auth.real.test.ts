// Secure metrics on the real kube-apiserver (RBAC on): the manager runs as its own ServiceAccount,
// allowed to create TokenReviews and SubjectAccessReviews only by the scaffold's metrics-auth-role;
// scrapers are ServiceAccounts with tokens from the TokenRequest API, one bound to the scaffold's
// metrics-reader ClusterRole. The real server's answers decide 200 / 403 / 401.
import https from "node:https";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { Client } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager } from "../../src/runtime/manager/manager.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const OPERATOR_NS = "memcached-operator-system";
const MONITORING_NS = "monitoring";
const RBAC = new URL("../../fixtures/scaffold/memcached-operator/config/rbac/", import.meta.url);

let real: RealTestCluster;
let rest: RestClient;
let client: Client;
let manager: Manager | undefined;
const logs: string[] = [];

beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real", namespaces: [OPERATOR_NS, MONITORING_NS] });
  const loaded = await loadKubeConfig({ kubeconfigText: real.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
});
afterAll(async () => {
  await manager?.stop();
  rest?.close();
  await real?.stop();
});

/** A scaffold RBAC file as `kubectl apply -k config/default` would create it (no name prefix here). */
function scaffoldObject(file: string): Record<string, unknown> {
  const [doc] = parseAllDocuments(readFileSync(new URL(file, RBAC), "utf8"));
  const obj = doc!.toJS() as { subjects?: Array<{ namespace?: string }> };
  for (const s of obj.subjects ?? []) s.namespace = OPERATOR_NS;
  return obj as Record<string, unknown>;
}

/** A ServiceAccount and a token for it from the TokenRequest API. */
async function serviceAccountToken(namespace: string, name: string): Promise<string> {
  await client.create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } });
  const request = await rest.request<{ status: { token: string } }>(
    "POST",
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      body: {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 3600 },
      },
    },
  );
  return request.status.token;
}

function kubeconfigWithToken(token: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: real",
    "  cluster:",
    `    server: ${real.url}`,
    `    certificate-authority-data: ${Buffer.from(real.caCertificate).toString("base64")}`,
    "users:",
    "- name: controller-manager",
    "  user:",
    `    token: ${token}`,
    "contexts:",
    "- name: real",
    "  context: {cluster: real, user: controller-manager, namespace: " + OPERATOR_NS + "}",
    "current-context: real",
    "",
  ].join("\n");
}

/** GET over HTTPS of the manager's self-signed endpoint (as Prometheus with insecure_skip_verify). */
function scrape(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        url,
        { headers: token ? { authorization: `Bearer ${token}` } : {}, rejectUnauthorized: false },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      )
      .on("error", reject);
  });
}

it("the real API server's TokenReview and SubjectAccessReview decide who scrapes: 200 / 403 / 401", async () => {
  for (const file of ["metrics_auth_role.yaml", "metrics_auth_role_binding.yaml", "metrics_reader_role.yaml"])
    await client.create(scaffoldObject(file));
  const managerToken = await serviceAccountToken(OPERATOR_NS, "controller-manager");
  const readerToken = await serviceAccountToken(MONITORING_NS, "prometheus");
  const otherToken = await serviceAccountToken(MONITORING_NS, "other");
  await client.create({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "prometheus-metrics-reader" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "metrics-reader" },
    subjects: [{ kind: "ServiceAccount", name: "prometheus", namespace: MONITORING_NS }],
  });

  manager = await Manager.create({
    kubeconfigText: kubeconfigWithToken(managerToken),
    // As the scaffold's main.ts reads --metrics-bind-address=:8443 with --metrics-secure's default.
    metricsSecure: true,
    metricsBindAddress: "127.0.0.1:0",
    healthProbeBindAddress: "0",
    handleSignals: false,
    logger: new Logger({ format: "json", level: "debug", sink: { write: (l: string) => logs.push(l) } }),
  });
  manager.start().catch(() => {});
  const url = `${await waitFor("the metrics server to listen", () => manager?.metricsUrl)}/metrics`;

  const allowed = await scrape(url, readerToken);
  expect(allowed.status, logs.join("\n")).toBe(200);
  expect(allowed.body).toContain("rest_client_requests_total");
  expect(await scrape(url, otherToken)).toEqual({
    status: 403,
    body: `Authorization denied for user system:serviceaccount:${MONITORING_NS}:other\n`,
  });
  expect(await scrape(url)).toEqual({ status: 401, body: "Unauthorized\n" });
  expect((await scrape(url, `${readerToken.slice(0, -4)}AAAA`)).status).toBe(401);
  // One review each (the second scrape of nobody repeats one), all created by the real server.
  const reviews = (resource: string) =>
    real.requests.filter((r) => r.method === "POST" && r.path.includes(`/${resource}`));
  expect(reviews("tokenreviews").map((r) => r.status)).toEqual([201, 201, 201]);
  expect(reviews("subjectaccessreviews").map((r) => r.status)).toEqual([201, 201]);

  // Without the scaffold's metrics-auth-role the manager cannot ask: a new scraper gets 500.
  await client.delete({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "metrics-auth-rolebinding" },
  });
  await waitFor("RBAC to drop the manager's tokenreviews permission", async () => {
    const review = await rest.request<{ status: { allowed: boolean } }>(
      "POST",
      "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: {
            user: `system:serviceaccount:${OPERATOR_NS}:controller-manager`,
            resourceAttributes: { group: "authentication.k8s.io", resource: "tokenreviews", verb: "create" },
          },
        },
      },
    );
    return !review.status.allowed;
  });
  const lateToken = await serviceAccountToken(MONITORING_NS, "late");
  expect(await scrape(url, lateToken)).toEqual({ status: 500, body: "Authentication failed\n" });
});
