// kwok as the cluster's kubelet: one fake Node ("kwok-node-0") that kwok keeps Ready (its default
// node stages, with a Lease heartbeat), and pod stages that make every pod bound to it Running and
// Ready, Job pods Succeeded, and deleted pods gone (no kubelet would otherwise finish a deletion).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { clientCertificate, kubeconfigYaml, type Pki } from "./pki.js";
import { Component, waitUntilReady } from "./process.js";
import { probe } from "./net.js";
import { FAKE_NODE } from "./kwok-stages.js";
import type { Reaper } from "./reaper.js";

const NODE_SELECTOR = "kwok.x-k8s.io/node=fake";

export interface KwokConfig {
  binary: string;
  dir: string;
  apiserverUrl: string;
  pki: Pki;
  adminToken: string;
  /** Pod Stage documents (YAML); replaces DEFAULT_POD_STAGES. */
  podStages: string[];
  extraArgs: Record<string, string>;
  timeoutMs: number;
}

const fakeNode = {
  apiVersion: "v1",
  kind: "Node",
  metadata: {
    name: FAKE_NODE,
    annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
    labels: {
      "kubernetes.io/arch": "amd64",
      "kubernetes.io/hostname": FAKE_NODE,
      "kubernetes.io/os": "linux",
      type: "kwok",
    },
  },
  status: {
    allocatable: { cpu: "32", memory: "256Gi", pods: "110" },
    capacity: { cpu: "32", memory: "256Gi", pods: "110" },
  },
};

export async function startKwok(config: KwokConfig, reaper: Reaper): Promise<Component> {
  const kubeconfig = join(config.dir, "kwok.kubeconfig");
  const identity = clientCertificate(config.pki, "kwok-controller", ["system:masters"]);
  await writeFile(
    kubeconfig,
    kubeconfigYaml(config.apiserverUrl, config.pki.ca.cert, { name: "kwok", certificate: identity }),
    {
      mode: 0o600,
    },
  );
  const stages = join(config.dir, "kwok-stages.yaml");
  await writeFile(stages, `${config.podStages.join("\n---\n")}\n`);
  const flags = {
    kubeconfig,
    config: stages,
    "manage-all-nodes": "false",
    "manage-nodes-with-annotation-selector": NODE_SELECTOR,
    "node-lease-duration-seconds": "40",
    cidr: "10.244.0.1/24",
    "node-ip": "10.96.0.2",
    ...config.extraArgs,
  };
  const component = Component.start(
    {
      name: "kwok",
      binary: config.binary,
      args: Object.entries(flags).map(([k, v]) => `--${k}=${v}`),
      logFile: join(config.dir, "kwok.log"),
    },
    reaper,
  );
  await createFakeNode(config);
  await waitUntilReady(component, () => nodeReady(config), config.timeoutMs);
  return component;
}

async function createFakeNode(config: KwokConfig): Promise<void> {
  const r = await probe(`${config.apiserverUrl}/api/v1/nodes`, {
    method: "POST",
    body: JSON.stringify(fakeNode),
    ca: config.pki.ca.cert,
    token: config.adminToken,
  });
  if (r.status !== 201) throw new Error(`creating Node ${FAKE_NODE} answered ${r.status}: ${r.body}`);
}

async function nodeReady(config: KwokConfig): Promise<boolean> {
  const r = await probe(`${config.apiserverUrl}/api/v1/nodes/${FAKE_NODE}`, {
    ca: config.pki.ca.cert,
    token: config.adminToken,
  });
  if (r.status !== 200) return false;
  const node = JSON.parse(r.body) as { status?: { conditions?: Array<{ type: string; status: string }> } };
  return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}
