// Each run's fresh cluster, in-memory (default) or the real control plane (`cluster: {
// controlPlane: "real" }`: etcd and kube-apiserver behind the fault proxy), as a run uses it: the
// faults, an admin kubeconfig, one for the operator as its own user (the faults match that user:
// a token on the in-memory server, a client certificate on the real one), the server's current
// resourceVersion and how long a run must stay quiet to count as settled.
import { request } from "node:https";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Client } from "../../runtime/index.js";
import type { Faults } from "../faults.js";
import { startMemoryCluster, type TestCluster } from "../memory/server.js";
import type { RealTestCluster, RealTestClusterOptions } from "../real/types.js";
import { OPERATOR_USER } from "./operator.js";
import type { PerturbClusterOptions } from "./types.js";

export interface RunCluster {
  /** What arrange() is given. */
  handle: TestCluster | RealTestCluster;
  faults: Faults;
  /** Admin (system:masters). */
  kubeconfigPath: string;
  /** Writes the operator's kubeconfig (OPERATOR_USER in system:masters) into `dir`; returns its path. */
  operatorKubeconfig(dir: string): Promise<string>;
  /** The server's latest resourceVersion: any write anywhere changes it. */
  resourceVersion(): Promise<string>;
  /** Whether simulated controllers have work on its way (the in-memory server's workloads). */
  workloadsBusy(): boolean;
  /**
   * Returns once what arrange() created can be used: on the real server a new CRD is served only
   * once it is Established (the in-memory server serves it at once).
   */
  arranged(admin: Client): Promise<void>;
  /** Drops the watch history (what a restarted in-memory server keeps of it). */
  compact(): void;
  /** Poll interval and consecutive quiet polls of settle(): a real server's watch events take longer to arrive. */
  quiet: { pollMs: number; checks: number };
  stop(): Promise<void>;
}

export async function startRunCluster(options: PerturbClusterOptions = {}): Promise<RunCluster> {
  if (options.controlPlane === "real") return startReal(options);
  const token = randomBytes(16).toString("hex");
  const cluster = await startMemoryCluster({
    ...options,
    users: { ...options.users, [token]: { name: OPERATOR_USER, groups: ["system:masters"] } },
  });
  return {
    handle: cluster,
    faults: cluster.faults,
    kubeconfigPath: cluster.kubeconfigPath,
    async operatorKubeconfig(dir) {
      const path = join(dir, "operator.kubeconfig");
      await writeFile(path, cluster.kubeconfig.replaceAll(cluster.token, token), { mode: 0o600 });
      return path;
    },
    resourceVersion: async () => cluster.resourceVersion(),
    workloadsBusy: () => cluster.workloadsBusy(),
    arranged: async () => undefined,
    compact: () => cluster.compact(),
    quiet: { pollMs: 5, checks: 3 },
    stop: () => cluster.stop(),
  };
}

async function startReal(options: RealTestClusterOptions): Promise<RunCluster> {
  const { startRealCluster } = await import("../real/index.js");
  const cluster = await startRealCluster(options);
  return {
    handle: cluster,
    faults: cluster.faults,
    kubeconfigPath: cluster.kubeconfigPath,
    async operatorKubeconfig(dir) {
      const path = join(dir, "operator.kubeconfig");
      await writeFile(path, cluster.kubeconfigFor(OPERATOR_USER, ["system:masters"]), { mode: 0o600 });
      return path;
    },
    resourceVersion: () => latestResourceVersion(cluster),
    // Real controllers (workloads: true) write when they get to it: the quiet window covers them.
    workloadsBusy: () => false,
    arranged: crdsEstablished,
    compact: () => {
      throw new Error("perturb: compact() exists on the in-memory server only");
    },
    quiet: { pollMs: 25, checks: options.workloads ? 40 : 8 },
    stop: () => cluster.stop(),
  };
}

type Crd = { metadata: { name?: string }; status?: { conditions?: Array<{ type: string; status: string }> } };

async function crdsEstablished(admin: Client): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const crds = (await admin.list({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
    })) as Crd[];
    const waiting = crds.filter(
      (c) => !c.status?.conditions?.some((x) => x.type === "Established" && x.status === "True"),
    );
    if (waiting.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `perturb: the CRDs ${waiting.map((c) => c.metadata.name).join(", ")} arrange() created are not Established after 60 s`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A list's resourceVersion is etcd's latest revision: one cheap read straight to kube-apiserver. */
function latestResourceVersion(cluster: RealTestCluster): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL("/api/v1/namespaces?limit=1", cluster.apiserverUrl);
    const req = request(
      url,
      {
        ca: cluster.caCertificate,
        headers: { Authorization: `Bearer ${cluster.token}`, Accept: "application/json" },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          if ((res.statusCode ?? 0) >= 300) {
            reject(new Error(`GET ${url.pathname}: ${res.statusCode} ${body.slice(0, 200)}`));
            return;
          }
          resolve(
            String(
              (JSON.parse(body) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion,
            ),
          );
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}
