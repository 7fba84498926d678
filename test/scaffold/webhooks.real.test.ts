// A scaffolded project's webhooks called by the real kube-apiserver: `tsop create webhook
// --defaulting --programmatic-validation --conversion`, `tsop generate`, the project compiled, and
// its operator (dist/main.js) run on this machine with a fresh serving certificate; the webhook
// configurations and the CRD's conversion point at it with that certificate as caBundle. The API
// server then defaults a field, rejects an invalid object with the handler's message, and serves an
// object stored at v1alpha1 as v2 through the conversion webhook.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { Client } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { type KObj, startTestCluster } from "../../src/testing/index.js";
import type { RealTestCluster } from "../../src/testing/real/types.js";
import {
  localWebhookConfigurations,
  withLocalConversion,
  writeServingCertificate,
} from "../../src/testing/webhook-config.js";
import { REPO_ROOT, runTsop } from "../support/cli.js";

const GROUP = "cache.example.com";
let dir: string;
let cluster: RealTestCluster;
let operator: ChildProcess | undefined;
let operatorLog = "";
let client: Client;
let rest: RestClient;

async function tsop(args: string[]): Promise<void> {
  const result = await runTsop(args, { cwd: dir, timeoutMs: 170_000 });
  if (result.exitCode !== 0) throw new Error(`tsop ${args.join(" ")} failed:\n${result.stderr}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${operatorLog.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The user's edits: v1alpha1 is the stored hub; v2 calls `size` `replicas`, and the conversion maps it. */
async function editLikeAUser(): Promise<void> {
  const hub = join(dir, "src/api/v1alpha1/memcached.ts");
  await writeFile(
    hub,
    (await readFile(hub, "utf8"))
      .replace("PrinterColumn, Status }", "PrinterColumn, Status, StorageVersion }")
      .replace("@Status()\n", "@Status()\n@StorageVersion()\n"),
  );
  const spoke = join(dir, "src/api/v2/memcached.ts");
  await writeFile(
    spoke,
    (await readFile(spoke, "utf8"))
      .replace("  size: Int32;", "  replicas: Int32;")
      .replace(".spec.size", ".spec.replicas"),
  );
  const conversion = join(dir, "src/api/v1alpha1/memcached.conversion.ts");
  await writeFile(
    conversion,
    (await readFile(conversion, "utf8"))
      .replace(
        /toHub: \(spoke: MemcachedV2\): Memcached => \([^\n]*\n/,
        'toHub: (spoke: MemcachedV2): Memcached => { const { replicas, ...rest } = spoke.spec ?? { replicas: 1 }; return { ...spoke, apiVersion: "cache.example.com/v1alpha1", spec: { ...rest, size: replicas } } as Memcached; },\n',
      )
      .replace(
        /fromHub: \(hub: Memcached\): MemcachedV2 => \([^\n]*\n/,
        'fromHub: (hub: Memcached): MemcachedV2 => { const { size, ...rest } = hub.spec ?? { size: 1 }; return { ...hub, apiVersion: "cache.example.com/v2", spec: { ...rest, replicas: size } } as MemcachedV2; },\n',
      ),
  );
}

beforeAll(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "tsop-webhooks-real-")), "memcached-operator");
  await mkdir(dir);
  await tsop(["init", dir, "--domain", "example.com", "--skip-install"]);
  await tsop(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
  await tsop([
    "create",
    "api",
    "--group",
    "cache",
    "--version",
    "v2",
    "--kind",
    "Memcached",
    "--controller=false",
  ]);
  await tsop([
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
  ]);
  await editLikeAUser();
  await mkdir(join(dir, "node_modules/@types"), { recursive: true });
  await symlink(REPO_ROOT, join(dir, "node_modules/tsop"), "dir");
  await symlink(join(REPO_ROOT, "node_modules/@types/node"), join(dir, "node_modules/@types/node"), "dir");
  // The scaffolded controller's Deployment type (a dependency of the scaffolded package.json).
  await mkdir(join(dir, "node_modules/@kubernetes"), { recursive: true });
  await symlink(
    join(REPO_ROOT, "node_modules/@kubernetes/client-node"),
    join(dir, "node_modules/@kubernetes/client-node"),
    "dir",
  );
  await tsop(["generate"]);
  execFileSync(
    process.execPath,
    [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: dir,
      stdio: "pipe",
    },
  );

  cluster = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));

  const serving = await writeServingCertificate(join(dir, "certs"));
  const [webhookPort, probePort] = [await freePort(), await freePort()];
  operator = spawn(
    process.execPath,
    [
      "dist/main.js",
      "--kubeconfig",
      cluster.kubeconfigPath,
      "--webhook-bind-address",
      `127.0.0.1:${webhookPort}`,
      "--webhook-cert-path",
      serving.certDir,
      "--metrics-bind-address",
      "0",
      "--health-probe-bind-address",
      `127.0.0.1:${probePort}`,
      "--log-level",
      "debug",
    ],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  operator.stdout?.on("data", (d) => (operatorLog += d));
  operator.stderr?.on("data", (d) => (operatorLog += d));
  const target = { url: `https://127.0.0.1:${webhookPort}`, caBundle: serving.caBundle };

  const crd = parse(await readFile(join(dir, `config/crd/bases/${GROUP}_memcacheds.yaml`), "utf8")) as KObj;
  await client.create(withLocalConversion(crd, target));
  await until("the Memcached CRD to be served at v1alpha1 and v2", async () => {
    for (const v of ["v1alpha1", "v2"]) {
      const list = await rest.request<{ resources?: unknown[] }>("GET", `/apis/${GROUP}/${v}`);
      if (!list.resources?.length) return undefined;
    }
    return true;
  });
  await until("the operator's webhook server to be ready", async () => {
    const res = await fetch(`http://127.0.0.1:${probePort}/readyz?verbose`);
    const body = await res.text();
    return body.includes("[+]webhook ok") ? true : undefined;
  });
  const manifests = parseAllDocuments(await readFile(join(dir, "config/webhook/manifests.yaml"), "utf8")).map(
    (d) => d.toJS() as KObj,
  );
  for (const config of localWebhookConfigurations(manifests, target)) await client.create(config);
}, 300_000);

afterAll(async () => {
  operator?.kill("SIGTERM");
  rest?.close();
  await cluster?.stop();
  if (dir) await rm(join(dir, ".."), { recursive: true, force: true });
});

const memcached = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1alpha1`,
  kind: "Memcached",
  metadata: { name, namespace: "default" },
  spec: { size: 2, ...spec },
});

describe("the real kube-apiserver calls the scaffolded webhooks", () => {
  it("stores the defaulted fields", async () => {
    // Webhook configurations take effect asynchronously in the API server: retry until the default shows.
    const stored = await until("the defaulting webhook to take effect", async () => {
      await client
        .delete({
          kind: { apiVersion: `${GROUP}/v1alpha1`, kind: "Memcached" },
          key: { namespace: "default", name: "defaulted" },
        })
        .catch(() => undefined);
      const created = (await client.create(memcached("defaulted", {}))) as KObj;
      return created.spec?.image ? created : undefined;
    });
    expect(stored.spec.image).toBe("docker.io/nginxinc/nginx-unprivileged:1.27-alpine");
    expect(stored.metadata.labels["app.kubernetes.io/name"]).toBe("memcached");
  });

  it("rejects an invalid object with the handler's message", async () => {
    await expect(client.create(memcached("untagged", { image: "docker.io/library/nginx" }))).rejects.toThrow(
      'admission webhook "vmemcached-v1alpha1.kb.io" denied the request: spec.image "docker.io/library/nginx" must name a tag or a digest',
    );
  });

  it("serves an object stored at v1alpha1 as v2 through the conversion webhook", async () => {
    await client.create(memcached("converted", { size: 3, image: "quay.io/example/memcached:1.6" }));
    const v2 = await rest.request<KObj>("GET", `/apis/${GROUP}/v2/namespaces/default/memcacheds/converted`);
    expect(v2.apiVersion).toBe(`${GROUP}/v2`);
    expect(v2.spec).toEqual({ replicas: 3, image: "quay.io/example/memcached:1.6", containerPort: 8080 });
    expect(operatorLog).toContain('"msg":"conversion"');
  });
});
