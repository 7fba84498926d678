// The real test bed with OLM: the real control plane (etcd, kube-apiserver, controller-manager,
// scheduler, kwok) started with the pod runner's egress proxy and kwok stages, the pod runner
// (OLM's operators, registry pods and unpack Jobs as local processes), and — unless `olm: false` —
// OLM installed by the built CLI's `tsop olm install` from the manifests shipped with tsop.
import { startTestCluster } from "../../../src/testing/index.js";
import type { RealTestCluster } from "../../../src/testing/real/types.js";
import { runTsop } from "../cli.js";
import { kwokStagesForRunner, type PodRunner, prepareRunnerNetwork, startPodRunner } from "./pod-runner.js";

export interface OlmBedOptions {
  /** Install OLM with `tsop olm install` (default true). */
  olm?: boolean;
  /** Namespaces created at start. */
  namespaces?: string[];
  /** Path of a rig binary by name. */
  binary(name: string): string;
  /** Runner diagnostics (e.g. console.error when TSOP_RUNNER_DEBUG is set). */
  log?(message: string): void;
}

export interface OlmBed {
  cluster: RealTestCluster;
  runner: PodRunner;
  stop(): Promise<void>;
}

export async function startOlmBed(options: OlmBedOptions): Promise<OlmBed> {
  const network = await prepareRunnerNetwork();
  const cluster = (await startTestCluster({
    controlPlane: "real",
    workloads: true,
    namespaces: options.namespaces,
    args: { "kube-apiserver": { "egress-selector-config-file": network.egressConfig } },
    kwokPodStages: kwokStagesForRunner(),
  })) as RealTestCluster;
  let runner: PodRunner | undefined;
  try {
    runner = await startPodRunner({
      apiserverUrl: cluster.apiserverUrl,
      caCertificate: cluster.caCertificate,
      token: cluster.token,
      network,
      binary: options.binary,
      log: options.log,
    });
    if (options.olm !== false) {
      const installed = await runTsop(["olm", "install", "--kubeconfig", cluster.kubeconfigPath, "--timeout", "5m"], {
        timeoutMs: 330_000,
      });
      if (installed.exitCode !== 0) throw new Error(`tsop olm install failed:\n${installed.stderr}`);
    }
  } catch (error) {
    await runner?.stop();
    await cluster.stop();
    throw error;
  }
  const started = runner;
  return {
    cluster,
    runner: started,
    async stop() {
      await started.stop();
      await cluster.stop();
    },
  };
}
