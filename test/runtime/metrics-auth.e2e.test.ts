// Secure metrics (--metrics-secure, kubebuilder v4's default) against the in-memory API server: a
// scrape is served over HTTPS only to a bearer token the server's TokenReview accepts and whose
// user RBAC lets `get` /metrics (the scaffold's metrics-reader ClusterRole, bound as a user would
// bind it); the certificate is self-signed unless a directory is given, whose rotation is picked up.
import https from "node:https";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type PeerCertificate } from "node:tls";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { issueCertificate } from "../../src/common/x509.js";
import type { Manager } from "../../src/runtime/manager/manager.js";
import { Memcached, MemcachedReconciler } from "./fixtures/memcached.js";
import { type Harness, harness, httpGet } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const READER_TOKEN = "prometheus-token";
const OTHER_TOKEN = "other-token";
const READER = "system:serviceaccount:monitoring:prometheus";
const OTHER = "system:serviceaccount:monitoring:other";
const serviceAccount = (ns: string) => [
  "system:serviceaccounts",
  `system:serviceaccounts:${ns}`,
  "system:authenticated",
];

/** The scaffold's metrics-reader ClusterRole, as `tsop init` writes it. */
const metricsReaderRole = parse(
  readFileSync(
    new URL("../../templates/init/config/rbac/metrics_reader_role.yaml.hbs", import.meta.url),
    "utf8",
  ),
);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function cluster(): Promise<Harness> {
  h = await harness({
    users: {
      [READER_TOKEN]: { name: READER, groups: serviceAccount("monitoring") },
      [OTHER_TOKEN]: { name: OTHER, groups: serviceAccount("monitoring") },
    },
  });
  await h.client.create(metricsReaderRole);
  await h.client.create({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "prometheus-metrics-reader" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "metrics-reader" },
    subjects: [{ kind: "ServiceAccount", name: "prometheus", namespace: "monitoring" }],
  });
  return h;
}

async function startSecure(
  h: Harness,
  options: Parameters<Harness["startManager"]>[0] = {},
): Promise<Manager> {
  const manager = await h.startManager({ metricsSecure: true, ...options });
  await manager.controller(Memcached).complete(new MemcachedReconciler());
  manager.start().catch(() => {});
  await waitFor("the manager to be ready", async () =>
    manager.healthProbeUrl ? (await httpGet(`${manager.healthProbeUrl}/readyz`)).status === 200 : false,
  );
  return manager;
}

interface Scrape {
  status: number;
  body: string;
}

/** GET over HTTPS, trusting `ca` when given (else any certificate, as a scraper of a self-signed endpoint). */
function scrape(url: string, token?: string, ca?: string): Promise<Scrape> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        ...(ca ? { ca, servername: "localhost" } : { rejectUnauthorized: false }),
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
  });
}

/** The certificate the server presents. */
function servedCertificate(url: string): Promise<PeerCertificate> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on("error", reject);
  });
}

const reviews = (h: Harness, resource: string) =>
  h.cluster.requests.filter((r) => r.method === "POST" && r.path.includes(`/${resource}`)).length;

describe("secure metrics", () => {
  it("serve a token bound to metrics-reader the controller metrics; reviews are cached between scrapes", async () => {
    const h = await cluster();
    const manager = await startSecure(h);
    await h.client.create({
      apiVersion: "cache.example.com/v1alpha1",
      kind: "Memcached",
      metadata: { name: "cache", namespace: "default" },
      spec: { size: 1 },
    });
    await waitFor("a reconcile", () =>
      Promise.resolve(
        manager.runtimeMetrics.reconcileTotal.get({ controller: "memcached", result: "success" }) > 0,
      ),
    );
    expect(manager.metricsUrl).toMatch(/^https:\/\//);
    const first = await scrape(`${manager.metricsUrl}/metrics`, READER_TOKEN);
    expect(first.status).toBe(200);
    expect(first.body).toContain(
      'controller_runtime_reconcile_total{controller="memcached",result="success"}',
    );
    expect(first.body).toContain("workqueue_depth");
    const second = await scrape(`${manager.metricsUrl}/metrics`, READER_TOKEN);
    expect(second.status).toBe(200);
    expect(reviews(h, "tokenreviews")).toBe(1);
    expect(reviews(h, "subjectaccessreviews")).toBe(1);
  });

  it("answer 403 to a valid token whose user is not bound to metrics-reader", async () => {
    const h = await cluster();
    const manager = await startSecure(h);
    const denied = await scrape(`${manager.metricsUrl}/metrics`, OTHER_TOKEN);
    expect(denied).toEqual({ status: 403, body: `Authorization denied for user ${OTHER}\n` });
  });

  it("answer 401 without a token or with one the API server does not know", async () => {
    const h = await cluster();
    const manager = await startSecure(h);
    expect(await scrape(`${manager.metricsUrl}/metrics`)).toEqual({ status: 401, body: "Unauthorized\n" });
    expect((await scrape(`${manager.metricsUrl}/metrics`, "made-up")).status).toBe(401);
    expect(reviews(h, "subjectaccessreviews")).toBe(0);
  });

  it("present a self-signed certificate when no directory is given", async () => {
    const h = await cluster();
    const manager = await startSecure(h);
    const cert = await servedCertificate(manager.metricsUrl!);
    expect(cert.subject.CN).toBe("tsop-metrics");
    expect(cert.issuer.CN).toBe(cert.subject.CN);
    expect(cert.subjectaltname).toContain("IP Address:127.0.0.1");
  });

  it("serve the certificate of --metrics-cert-path and pick up a rotated one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsop-metrics-cert-"));
    dirs.push(dir);
    const issue = (commonName: string) => {
      const pair = issueCertificate({
        commonName,
        ca: true,
        usages: ["server"],
        hosts: ["127.0.0.1", "localhost"],
      });
      writeFileSync(join(dir, "metrics.crt"), pair.cert);
      writeFileSync(join(dir, "metrics.key"), pair.key);
      return pair;
    };
    const first = issue("metrics-first");
    const h = await cluster();
    const manager = await startSecure(h, {
      metricsCertDir: dir,
      metricsCertName: "metrics.crt",
      metricsKeyName: "metrics.key",
      metricsCertPollIntervalMs: 20,
    });
    expect((await servedCertificate(manager.metricsUrl!)).subject.CN).toBe("metrics-first");
    expect((await scrape(`${manager.metricsUrl}/metrics`, READER_TOKEN, first.cert)).status).toBe(200);
    const second = issue("metrics-second");
    await waitFor(
      "the rotated certificate to be served",
      async () => (await servedCertificate(manager.metricsUrl!)).subject.CN === "metrics-second",
    );
    expect((await scrape(`${manager.metricsUrl}/metrics`, READER_TOKEN, second.cert)).status).toBe(200);
  });

  it("fail at start, naming the file, when the certificate directory lacks the pair", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsop-metrics-empty-"));
    dirs.push(dir);
    const h = await cluster();
    const manager = await h.startManager({ metricsSecure: true, metricsCertDir: dir });
    await expect(manager.start()).rejects.toThrow(
      `the metrics server needs a certificate and key: ${join(dir, "tls.crt")} does not exist`,
    );
  });
});

describe("plain metrics (metricsSecure unset)", () => {
  it("serve anyone over HTTP, as before", async () => {
    const h = await cluster();
    const manager = await h.startManager();
    manager.start().catch(() => {});
    await waitFor("metrics to listen", () => Promise.resolve(manager.metricsUrl !== undefined));
    expect(manager.metricsUrl).toMatch(/^http:\/\//);
    const res = await httpGet(`${manager.metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.body).toContain("rest_client_requests_total");
    expect(reviews(h, "tokenreviews")).toBe(0);
  });
});
