// Test harness: the in-memory API server, the Memcached CRD, a client for the test itself, and
// managers started with free ports and captured logs.
import { startTestCluster } from "../../../src/testing/index.js";
import { Client } from "../../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../../src/runtime/log/logger.js";
import { Manager, type ManagerOptions } from "../../../src/runtime/manager/manager.js";
import { RestMapper } from "../../../src/runtime/connect/mapper.js";
import { RestClient } from "../../../src/runtime/connect/rest.js";
import { waitFor } from "./wait.js";

export type TestCluster = Awaited<ReturnType<typeof startTestCluster>>;

export const MEMCACHED_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "memcacheds.cache.example.com" },
  spec: {
    group: "cache.example.com",
    names: {
      kind: "Memcached",
      listKind: "MemcachedList",
      plural: "memcacheds",
      singular: "memcached",
      shortNames: ["mc"],
    },
    scope: "Namespaced",
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              apiVersion: { type: "string" },
              kind: { type: "string" },
              metadata: { type: "object" },
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer", format: "int32", minimum: 1 },
                  containerPort: { type: "integer", format: "int32" },
                },
              },
              status: {
                type: "object",
                properties: {
                  readyReplicas: { type: "integer", format: "int32" },
                  conditions: {
                    type: "array",
                    items: {
                      type: "object",
                      required: ["type", "status", "lastTransitionTime", "reason", "message"],
                      properties: {
                        type: { type: "string" },
                        status: { type: "string", enum: ["True", "False", "Unknown"] },
                        observedGeneration: { type: "integer", format: "int64" },
                        lastTransitionTime: { type: "string", format: "date-time" },
                        reason: { type: "string" },
                        message: { type: "string" },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

export interface Harness {
  cluster: TestCluster;
  client: Client;
  logs: string[];
  managers: Manager[];
  startManager(options?: ManagerOptions): Promise<Manager>;
  stop(): Promise<void>;
}

export async function harness(clusterOptions: Parameters<typeof startTestCluster>[0] = {}): Promise<Harness> {
  const cluster = await startTestCluster(clusterOptions);
  const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
  const rest = new RestClient(loaded.server, loaded);
  const client = new Client(rest, new RestMapper(rest));
  await client.create(MEMCACHED_CRD);
  await waitFor("the Memcached CRD to be served", async () => {
    const list = await rest
      .request<{ resources?: unknown[] }>("GET", "/apis/cache.example.com/v1alpha1")
      .catch(() => undefined);
    return (list?.resources?.length ?? 0) > 0;
  });
  const logs: string[] = [];
  const managers: Manager[] = [];
  const h: Harness = {
    cluster,
    client,
    logs,
    managers,
    async startManager(options = {}) {
      const manager = await Manager.create({
        kubeconfig: cluster.kubeconfigPath,
        metricsBindAddress: "127.0.0.1:0",
        healthProbeBindAddress: "127.0.0.1:0",
        handleSignals: false,
        gracefulShutdownTimeoutMs: 5000,
        logger: new Logger({ format: "json", level: "debug", sink: { write: (l: string) => logs.push(l) } }),
        ...options,
      });
      managers.push(manager);
      return manager;
    },
    async stop() {
      await Promise.all(managers.map((m) => m.stop()));
      rest.close();
      await cluster.stop();
    },
  };
  return h;
}

export async function httpGet(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

/** The value of one sample in a Prometheus text exposition (undefined when absent). */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}
