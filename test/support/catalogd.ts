// OLM v1's catalogd (operator-controller's cmd/catalogd, built by the rig) on a real control plane,
// installed as its release manifest installs it, as far as a bed without pods needs: the
// ClusterCatalog CRD, the olmv1-system namespace, catalogd's ServiceAccount and RBAC, and its
// mutating webhook. catalogd runs as a local process under its own ServiceAccount (a TokenRequest
// token: its kubeconfig, and the in-pod token file it reads its identity from: pod-identity.ts),
// serving catalogs over HTTPS and its webhook with a certificate from a test CA.
// The webhook configuration points at it by URL instead of the Service cert-manager would sign.
import { realpath, readFile, mkdir, mkdtemp, rm, copyFile, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { parseAllDocuments, stringify } from "yaml";
import { freePort, probe } from "../../src/testing/real/net.js";
import { type Component, waitUntilReady } from "../../src/testing/real/process.js";
import { Reaper } from "../../src/testing/real/reaper.js";
import type { RealTestCluster } from "../../src/testing/index.js";
import { startPodProcess } from "./pod-identity.js";
import { generateTlsCertificates } from "./registry.js";
import { rigBinary } from "./rig.js";

export const CATALOGD_NAMESPACE = "olmv1-system";
const SERVICE_ACCOUNT = "catalogd-controller-manager";
const WEBHOOK_PATH = "/mutate-olm-operatorframework-io-v1-clustercatalog";

/** The objects of the release manifest catalogd needs here, by kind and name. */
const INSTALL: Array<[kind: string, name: string]> = [
  ["Namespace", CATALOGD_NAMESPACE],
  ["ServiceAccount", SERVICE_ACCOUNT],
  ["CustomResourceDefinition", "clustercatalogs.olm.operatorframework.io"],
  ["ClusterRole", "catalogd-manager-role"],
  ["ClusterRoleBinding", "catalogd-manager-rolebinding"],
  ["Role", "catalogd-manager-role"],
  ["RoleBinding", "catalogd-manager-rolebinding"],
  // Its metrics endpoint authenticates and authorizes scrapers (TokenReviews, SubjectAccessReviews).
  ["ClusterRole", "catalogd-proxy-role"],
  ["ClusterRoleBinding", "catalogd-proxy-rolebinding"],
];

export interface Catalogd {
  /** The PEM file of the CA that signed catalogd's serving certificate. */
  caFile: string;
  /** The catalog server's base, https://127.0.0.1:PORT. */
  url: string;
  logFile: string;
  stop(): Promise<void>;
}

export interface CatalogdOptions {
  /** A directory of CA certificates catalogd trusts when it pulls catalog images. */
  pullCaDir: string;
}

type Doc = Record<string, unknown> & { kind?: string; metadata?: { name?: string; annotations?: unknown } };

/** The release manifest the rig keeps beside the catalogd binary (same operator-controller version). */
async function releaseManifest(): Promise<Doc[]> {
  const binary = await realpath(rigBinary("catalogd"));
  const text = await readFile(join(dirname(binary), "olmv1-standard.yaml"), "utf8");
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => d !== null);
}

function pick(docs: Doc[], kind: string, name: string): Doc {
  const found = docs.find((d) => d.kind === kind && d.metadata?.name === name);
  if (!found) throw new Error(`operator-controller's release manifest has no ${kind} ${name}`);
  return found;
}

export async function kubectl(cluster: RealTestCluster, args: string[], input?: string): Promise<string> {
  const run = await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, ...args], {
    ...(input !== undefined ? { input } : {}),
    reject: false,
    all: true,
  });
  if (run.exitCode !== 0) throw new Error(`kubectl ${args.join(" ")} failed:\n${run.all}`);
  return run.stdout;
}

function kubeconfigWithToken(cluster: RealTestCluster, token: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "bed",
        cluster: {
          server: cluster.url,
          "certificate-authority-data": Buffer.from(cluster.caCertificate).toString("base64"),
        },
      },
    ],
    users: [{ name: SERVICE_ACCOUNT, user: { token } }],
    contexts: [{ name: "bed", context: { cluster: "bed", user: SERVICE_ACCOUNT } }],
    "current-context": "bed",
  });
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export async function startCatalogd(cluster: RealTestCluster, options: CatalogdOptions): Promise<Catalogd> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-catalogd-"));
  const reaper = Reaper.start();
  reaper.watchDirectory(dir);
  let component: Component | undefined;
  const stop = async () => {
    await component?.stop();
    reaper.release();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const docs = await releaseManifest();
    const install = INSTALL.map(([kind, name]) => pick(docs, kind, name));
    await kubectl(cluster, ["apply", "-f", "-"], install.map((d) => stringify(d)).join("---\n"));
    await kubectl(cluster, [
      "wait",
      "--for=condition=Established",
      "crd/clustercatalogs.olm.operatorframework.io",
      "--timeout=60s",
    ]);
    const token = (
      await kubectl(cluster, ["create", "token", SERVICE_ACCOUNT, "-n", CATALOGD_NAMESPACE, "--duration=1h"])
    ).trim();

    await writeFile(join(dir, "kubeconfig"), kubeconfigWithToken(cluster, token));

    const { ca, server } = await generateTlsCertificates(dir);
    // controller-runtime's webhook server reads its certificate from $TMPDIR/k8s-webhook-server/serving-certs.
    const webhookCerts = join(dir, "tmp", "k8s-webhook-server", "serving-certs");
    await mkdir(webhookCerts, { recursive: true });
    await copyFile(server.certPath, join(webhookCerts, "tls.crt"));
    await copyFile(server.keyPath, join(webhookCerts, "tls.key"));

    const [catalogPort, metricsPort, probePort, webhookPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    component = await startPodProcess({
      name: "catalogd",
      binary: await realpath(rigBinary("catalogd")),
      args: [
        `--system-namespace=${CATALOGD_NAMESPACE}`,
        `--catalogs-server-addr=127.0.0.1:${catalogPort}`,
        `--external-address=127.0.0.1:${catalogPort}`,
        `--tls-cert=${server.certPath}`,
        `--tls-key=${server.keyPath}`,
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--health-probe-bind-address=127.0.0.1:${probePort}`,
        `--webhook-server-port=${webhookPort}`,
        `--cache-dir=${join(dir, "cache")}`,
        `--pull-cas-dir=${options.pullCaDir}`,
      ],
      dir,
      identity: { namespace: CATALOGD_NAMESPACE, token, caCertificate: cluster.caCertificate },
      env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig"), TMPDIR: join(dir, "tmp") },
      reaper,
    });
    const started = component;
    await waitUntilReady(
      started,
      async () =>
        (await probe(`http://127.0.0.1:${probePort}/readyz`)).status === 200 &&
        (await listening(webhookPort)),
      120_000,
    );

    // The webhook configuration of the release, pointed at this catalogd by URL and trusting its CA.
    const webhook = structuredClone(
      pick(docs, "MutatingWebhookConfiguration", "catalogd-mutating-webhook-configuration"),
    );
    delete webhook.metadata!.annotations;
    for (const w of webhook.webhooks as Array<{ clientConfig: unknown }>)
      w.clientConfig = {
        url: `https://127.0.0.1:${webhookPort}${WEBHOOK_PATH}`,
        caBundle: Buffer.from(await readFile(ca.certPath)).toString("base64"),
      };
    await kubectl(cluster, ["apply", "-f", "-"], stringify(webhook));
    return {
      caFile: ca.certPath,
      url: `https://127.0.0.1:${catalogPort}`,
      logFile: started.spec.logFile,
      stop,
    };
  } catch (error) {
    const log = component ? `\ncatalogd's log ends with:\n${component.logTail()}` : "";
    await stop();
    throw new Error(`${(error as Error).message}${log}`);
  }
}
