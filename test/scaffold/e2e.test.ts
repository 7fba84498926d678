// The one slow test: what a user does after `tsop init` — a real `npm install` (tsop itself as a
// file: dependency), two kinds (one cluster-scoped), then the scaffolded project's own build, test
// and lint, and finally its operator binary running against tsop's in-memory API server.
import { readdir, readFile, writeFile } from "node:fs/promises";
import https from "node:https";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Manager } from "../../src/runtime/index.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { freePort } from "../../src/testing/real/net.js";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { restrictedViolations } from "./restricted.js";

const clusters: TestCluster[] = [];
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
});

async function npm(cwd: string, ...args: string[]) {
  const result = await execa("npm", args, { cwd, reject: false, all: true, env: { NO_COLOR: "1", CI: "1" } });
  if (result.exitCode !== 0) throw new Error(`npm ${args.join(" ")} failed in ${cwd}:\n${result.all}`);
  return result.all ?? "";
}

/** A GET of the operator's self-signed HTTPS metrics endpoint (as a scraper with insecure_skip_verify). */
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

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a scaffolded project", () => {
  it(
    "installs, builds, tests, lints and runs its operator against the test API server",
    {
      timeout: 600_000,
    },
    async () => {
      const parent = await testdir();
      const dir = join(parent, "memcached-operator");
      const init = await runTsop(["init", dir, "--domain", "example.com"], {
        // npm runs a file: dependency's `prepare` (tsop's build) on install; the checkout is built
        // already, and rebuilding it here would race with the tests that use it.
        env: { TSOP_DEPENDENCY: `file:${REPO_ROOT}`, npm_config_ignore_scripts: "true" },
        timeoutMs: 300_000,
      });
      expect(init.stderr).toContain("installed dependencies");
      expect(init.exitCode).toBe(0);
      // Its Dockerfile and CI run npm ci: the lock npm install just wrote must pass it (issue 42).
      await npm(dir, "ci", "--ignore-scripts", "--no-audit", "--no-fund");
      for (const args of [
        ["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"],
        ["--group", "infra", "--version", "v1", "--kind", "Cluster", "--namespaced=false"],
      ]) {
        const created = await runTsop(["create", "api", ...args], { cwd: dir });
        expect(created.exitCode, created.stderr).toBe(0);
      }

      // Webhooks for Memcached: defaulting, validation, and conversion with v1alpha1 as the stored hub.
      const v2 = await runTsop(
        ["create", "api", "--group", "cache", "--version", "v2", "--kind", "Memcached", "--controller=false"],
        { cwd: dir },
      );
      expect(v2.exitCode, v2.stderr).toBe(0);
      const hub = join(dir, "src/api/v1alpha1/memcached.ts");
      await writeFile(
        hub,
        (await readFile(hub, "utf8"))
          .replace("PrinterColumn, Status }", "PrinterColumn, Status, StorageVersion }")
          .replace("@Status()\n", "@Status()\n@StorageVersion()\n"),
      );
      const webhooks = await runTsop(
        [
          "create",
          "webhook",
          "--group",
          "cache",
          "--version",
          "v1alpha1",
          "--kind",
          "Memcached",
          "--defaulting",
          "--programmatic-validation",
          "--conversion",
        ],
        { cwd: dir },
      );
      expect(webhooks.exitCode, webhooks.stderr).toBe(0);

      await npm(dir, "run", "build");
      const crds = await readdir(join(dir, "config/crd/bases"));
      expect(crds.sort()).toEqual(["cache.example.com_memcacheds.yaml", "infra.example.com_clusters.yaml"]);
      const tests = await npm(dir, "test");
      // Both scaffolded reconciler tests (4 cases each), both perturbation tests (1 each: every
      // scenario of tsop/testing's perturb()) and the webhook test (4 cases: defaulting, a
      // rejection, an accepted object, conversion) ran against tsop/testing.
      expect(tests).toMatch(/Tests\s+14 passed/);
      await npm(dir, "run", "lint");

      // A reconciler that needs a rule no @Rbac declares (issue 42): generate warns naming the call
      // and the rule, and its own test, run as the operator's ServiceAccount, fails with the 403
      // naming the @Rbac line to add.
      const source = join(dir, "src/controllers/memcached.controller.ts");
      const original = await readFile(source, "utf8");
      const listing = original.replace(
        "    await ensureFinalizer(",
        '    await ctx.client.list({ apiVersion: "v1", kind: "ConfigMap" }, { namespace: request.namespace });\n    await ensureFinalizer(',
      );
      expect(listing).not.toBe(original);
      await writeFile(source, listing);
      const warned = await runTsop(["generate"], { cwd: dir });
      expect(warned.exitCode, warned.stderr).toBe(0);
      expect(warned.stderr).toMatch(
        /src\/controllers\/memcached\.controller\.ts:\d+:\d+: ctx\.client\.list\(.*needs list on configmaps \(API group ""\), which no @Rbac grants: add @Rbac\(\{ groups: \[""\], resources: \["configmaps"\], verbs: \["list"\] \}\)/,
      );
      const refused = await execa("npx", ["vitest", "run", "test/memcached.controller.test.ts"], {
        cwd: dir,
        reject: false,
        all: true,
        env: { NO_COLOR: "1", CI: "1" },
      });
      expect(refused.exitCode).not.toBe(0);
      expect(refused.all).toContain(
        'RBAC refused list on configmaps in API group "" in namespace "default" to system:serviceaccount:default:controller-manager: add @Rbac({ groups: [""], resources: ["configmaps"], verbs: ["list", "watch"] }) to a controller',
      );
      await writeFile(source, original);

      // The workload the reconciler creates passes Pod Security "restricted".
      const controller = await import(
        pathToFileURL(join(dir, "dist/controllers/memcached.controller.js")).href
      );
      const desired = controller.desiredDeployment({
        apiVersion: "cache.example.com/v1alpha1",
        kind: "Memcached",
        metadata: { name: "m", namespace: "default" },
        spec: { size: 2 },
      });
      expect(desired.spec.replicas).toBe(2);
      expect(restrictedViolations(desired.spec.template.spec)).toEqual([]);

      // The operator itself (dist/main.js) against the in-memory API server, with the generated CRDs.
      const cluster = await startTestCluster({ workloads: true });
      clusters.push(cluster);
      const client = (
        await Manager.create({
          kubeconfig: cluster.kubeconfigPath,
          handleSignals: false,
          logger: { level: "error" },
        })
      ).client;
      for (const file of crds) {
        await client.create(parse(await readFile(join(dir, "config/crd/bases", file), "utf8")));
      }
      // Metrics as the scaffold's manager.yaml asks for them (--metrics-secure's default: true).
      const metricsPort = await freePort();
      const operator = execa(
        "node",
        [
          "dist/main.js",
          `--kubeconfig=${cluster.kubeconfigPath}`,
          `--metrics-bind-address=127.0.0.1:${metricsPort}`,
          "--health-probe-bind-address=0",
        ],
        // No serving certificate outside a cluster: run without the webhook server, as `npm start` would.
        { cwd: dir, reject: false, all: true, env: { ENABLE_WEBHOOKS: "false" } },
      );
      try {
        await client.create({
          apiVersion: "cache.example.com/v1alpha1",
          kind: "Memcached",
          metadata: { name: "sample", namespace: "default" },
          spec: { size: 2 },
        });
        await client.create({
          apiVersion: "infra.example.com/v1",
          kind: "Cluster",
          metadata: { name: "global" },
          spec: { size: 1, targetNamespace: "default" },
        });
        const deployment = { apiVersion: "apps/v1", kind: "Deployment" };
        type Dep = { spec?: { replicas?: number }; metadata: { ownerReferences?: Array<{ kind: string }> } };
        const forMemcached = await waitFor("the Memcached's Deployment", () =>
          client.get<Dep & { apiVersion: string; kind: string }>(deployment, {
            namespace: "default",
            name: "sample",
          }),
        );
        expect(forMemcached.spec?.replicas).toBe(2);
        expect(forMemcached.metadata.ownerReferences?.[0]?.kind).toBe("Memcached");
        const forCluster = await waitFor("the Cluster's Deployment", () =>
          client.get<Dep & { apiVersion: string; kind: string }>(deployment, {
            namespace: "default",
            name: "global",
          }),
        );
        expect(forCluster.metadata.ownerReferences?.[0]?.kind).toBe("Cluster");
        const available = await waitFor("the Memcached to report Available", async () => {
          const m = await client.get<{
            apiVersion: string;
            kind: string;
            status?: { conditions?: Array<{ type: string; status: string }> };
          }>(
            { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached" },
            { namespace: "default", name: "sample" },
          );
          return m?.status?.conditions?.find((c) => c.type === "Available" && c.status === "True");
        });
        expect(available).toBeDefined();
        // The operator's metrics: HTTPS, a token the API server accepts and authorizes (the
        // kubeconfig's user is in system:masters), 401 without one.
        const metricsUrl = `https://127.0.0.1:${metricsPort}/metrics`;
        expect(await scrape(metricsUrl)).toEqual({ status: 401, body: "Unauthorized\n" });
        const metrics = await scrape(metricsUrl, cluster.token);
        expect(metrics.status).toBe(200);
        expect(metrics.body).toContain(
          'controller_runtime_reconcile_total{controller="memcached",result="success"}',
        );
      } finally {
        operator.kill("SIGTERM");
      }
      const exited = await operator;
      expect(exited.exitCode, exited.all).toBe(0);
    },
  );
});
