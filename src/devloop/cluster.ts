// The cluster side shared by the dev-loop commands: connecting, with the "which cluster" line every
// command prints first. Custom resources are listed and deleted by kube/custom-resources.ts.
import type { KubeClient } from "../kube/client.js";
import { type ClusterOptions, connect } from "../kube/connect.js";
import { messages } from "./messages.js";

export type { ClusterOptions };

export interface DevSession {
  client: KubeClient;
  close(): void;
}

/**
 * Connects and tells the user which cluster the command acts on, and which namespace: `true` for the
 * connection's own (-n, else the context's).
 */
export async function openCluster(options: ClusterOptions, namespace?: string | true): Promise<DevSession> {
  const { client, owned } = await connect(options);
  const shown = namespace === true ? client.namespace : namespace;
  options.reporter.info(`using ${messages.target(client.server, client.connection.contextName, shown)}`);
  return { client, close: () => owned && client.close() };
}
