// The public shapes of the real control plane (type-only, so `tsop/testing` loads none of it until
// startTestCluster({ controlPlane: "real" }) is called).
import type { Faults } from "../faults.js";
import type { RequestRecord } from "../requests.js";
import type { BinaryLookup, BinaryName } from "./binaries.js";

export interface RealTestClusterOptions extends BinaryLookup {
  /** Run the real kube-apiserver (and etcd) instead of the in-memory server. */
  controlPlane: "real";
  /**
   * Also start kube-controller-manager, kube-scheduler and kwok with one fake Node, so Deployments,
   * Jobs, namespaces, garbage collection and service-account tokens behave as in a cluster and pods
   * become Running/Ready (kwok plays their lifecycle; no container runs).
   */
  workloads?: boolean;
  /** Namespaces created at start (besides the apiserver's own). */
  namespaces?: string[];
  /** Extra or overriding command-line flags per component, without the leading "--". */
  args?: Partial<Record<BinaryName, Record<string, string>>>;
  /** kwok Stage documents (YAML) for pods, replacing the default ones (Running/Ready, Job pods Succeeded, deletion). */
  kwokPodStages?: string[];
  /** How long each component may take to become ready (default 60 s). */
  startTimeoutMs?: number;
}

export interface RealTestCluster {
  /** The fault proxy's URL (https://127.0.0.1:PORT): what the kubeconfig points at. */
  url: string;
  /** The kube-apiserver's own URL (no faults); controller-manager, scheduler and kwok use it. */
  apiserverUrl: string;
  /** PEM of the cluster CA (signs the serving and client certificates). */
  caCertificate: string;
  /** Kubeconfig YAML (context "tsop-test", namespace default) with an admin client certificate (group system:masters). */
  kubeconfig: string;
  /** The kubeconfig written to a file in the cluster's directory (removed by stop()). */
  kubeconfigPath: string;
  /** A bearer token of an admin user (group system:masters), for raw HTTP clients. */
  token: string;
  /** The server's gitVersion (e.g. v1.34.4) as /version reports it. */
  kubernetesVersion: string;
  /** Faults the proxy injects (same API as the in-memory server's). */
  faults: Faults;
  /** Requests through the proxy (method, path with query, status, user), oldest first (last 5000). */
  requests: RequestRecord[];
  /** Cuts every watch open through the proxy (clients see the stream end). */
  closeWatches(): void;
  /** Number of watches open through the proxy. */
  openWatches(): number;
  /**
   * Stops kube-apiserver (SIGTERM, as a rolling restart does; etcd keeps the data). Meanwhile the
   * proxy answers 502 and open watches end. startApiServer() brings it back on the same port.
   */
  stopApiServer(): Promise<void>;
  /** Starts a stopped kube-apiserver again (same port, flags and etcd); resolves once it is ready. */
  startApiServer(): Promise<void>;
  /** stopApiServer() then startApiServer(). */
  restartApiServer(): Promise<void>;
  /** Kubeconfig YAML for `user` in `groups`, by a client certificate the cluster CA signs (RBAC applies to it). */
  kubeconfigFor(user: string, groups?: string[]): string;
  /** The cluster's directory: certificates, etcd data, and each component's log (<name>.log). */
  dataDir: string;
  /** The component processes still running (name and pid). */
  processes(): Array<{ name: string; pid: number }>;
  /** Stops every component and the proxy, and removes dataDir. */
  stop(): Promise<void>;
}
