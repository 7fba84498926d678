// startTestCluster(): the one place that chooses the control plane. The in-memory server
// (./memory) is the default; { controlPlane: "real" } loads ./real (etcd, kube-apiserver, …) only
// when asked for, so `tsop/testing` stays light for in-memory tests.
import { startMemoryCluster, type TestCluster, type TestClusterOptions } from "./memory/server.js";
import type { RealTestCluster, RealTestClusterOptions } from "./real/types.js";

/**
 * Starts a test cluster: by default the in-memory API server; with `controlPlane: "real"`, etcd and
 * the real kube-apiserver (and with `workloads`, controller-manager, scheduler and kwok), found
 * like envtest's binaries. The real control plane's modules load only when asked for.
 */
export function startTestCluster(options: RealTestClusterOptions): Promise<RealTestCluster>;
export function startTestCluster(options?: TestClusterOptions): Promise<TestCluster>;
export async function startTestCluster(
  options: TestClusterOptions | RealTestClusterOptions = {},
): Promise<TestCluster | RealTestCluster> {
  if (options.controlPlane === "real") {
    const { startRealCluster } = await import("./real/index.js");
    return startRealCluster(options);
  }
  return startMemoryCluster(options);
}
