// OLM on the real test bed. prepareOlmRig() runs before the cluster starts: it makes the pod
// runner's network (the kube-apiserver's egress selector sends "cluster" traffic — the packageserver
// APIService, webhooks — through the runner's proxy) and the kwok stages that leave the runner's pods
// alone. startOlmOnRig() then starts the pod runner (OLM's operators, catalog registry pods and
// bundle-unpack Jobs, and every pod whose images come from a registry on 127.0.0.1 — the operator
// tsop built — as local processes; test/support/rig/) and, unless `install: false`, installs
// OLM with the built CLI's `tsop olm install` from the manifests shipped with tsop. With
// `install: false` the runner still runs, so a later `tsop olm install` gets working operators.
import type { RealTestCluster, RealTestClusterOptions } from "../../src/testing/index.js";
import { execa } from "execa";
import { runTsop } from "./cli.js";
import { acquireMachineLock } from "./machine-lock.js";
import {
  kwokStagesForRunner,
  type PodRunner,
  prepareRunnerNetwork,
  type RunnerNetwork,
  startPodRunner,
} from "./rig/pod-runner.js";
import { withUnpullableImages } from "./rig/unpullable.js";

export interface OlmOnRig {
  runner: PodRunner;
  /** Stops the pod runner and the processes it runs (the cluster itself is stopped by its owner). */
  stop(): Promise<void>;
}

export interface PreparedOlmRig {
  network: RunnerNetwork;
  /** Merge into startTestCluster's options. */
  clusterOptions: Pick<RealTestClusterOptions, "args" | "kwokPodStages">;
}

/**
 * `unpullableImages`: kwok plays ImagePullBackOff for pods using them (test/support/rig/unpullable.ts);
 * `mirrored`: repository prefixes the bed's mirror will serve (rig/mirror.ts), left to the runner.
 */
export async function prepareOlmRig(
  unpullableImages: string[] = [],
  mirrored: readonly string[] = [],
): Promise<PreparedOlmRig> {
  const network = await prepareRunnerNetwork();
  return {
    network,
    clusterOptions: {
      args: { "kube-apiserver": { "egress-selector-config-file": network.egressConfig } },
      kwokPodStages: withUnpullableImages(kwokStagesForRunner(mirrored), unpullableImages),
    },
  };
}

export interface OlmRigOptions {
  /** Install OLM with `tsop olm install` (default true). */
  install?: boolean;
  /** Path of a rig binary (olm, catalog, package-server, cpb, opm). */
  binary(name: string): string;
  log?(message: string): void;
  /** The bed's registry mirror (rig/mirror.ts; its sources given to prepareOlmRig too). */
  mirror?: { sources: readonly string[]; registriesConf: string };
}

export async function startOlmOnRig(
  cluster: RealTestCluster,
  prepared: PreparedOlmRig,
  options: OlmRigOptions,
): Promise<OlmOnRig> {
  // One OLM bed on the machine at a time: its operators listen on fixed host ports.
  const lock = await acquireMachineLock("olm-bed", options.log ?? ((line) => console.error(line)));
  let runner: PodRunner;
  try {
    runner = await startPodRunner({
      apiserverUrl: cluster.apiserverUrl,
      caCertificate: cluster.caCertificate,
      token: cluster.token,
      network: prepared.network,
      binary: options.binary,
      log: options.log,
      ...(options.mirror ? { mirror: options.mirror } : {}),
    });
  } catch (error) {
    await lock.release();
    throw error;
  }
  const stop = async () => {
    await runner.stop();
    await lock.release();
  };
  try {
    if (options.install !== false) {
      const installed = await runTsop(
        ["olm", "install", "--kubeconfig", cluster.kubeconfigPath, "--timeout", "5m"],
        { timeoutMs: 330_000 },
      );
      if (installed.exitCode !== 0) throw new Error(`tsop olm install failed:\n${installed.stderr}`);
      await defaultCatalogReady(cluster.kubeconfigPath);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { runner, stop };
}

/**
 * Waits for OLM's default CatalogSource (operatorhubio-catalog, served by the runner's opm) to be
 * READY. `tsop olm install` gives it only a bounded grace (it is a catalog, not OLM itself), but real OLM's
 * resolver fails every Subscription while a global catalog is unreachable, and on a loaded machine
 * the first connection can land in TRANSIENT_FAILURE's backoff: tests start from a settled OLM.
 */
async function defaultCatalogReady(kubeconfig: string): Promise<void> {
  const waited = await execa(
    "kubectl",
    [
      "--kubeconfig",
      kubeconfig,
      "wait",
      "-n",
      "olm",
      "catalogsource/operatorhubio-catalog",
      "--for=jsonpath={.status.connectionState.lastObservedState}=READY",
      "--timeout=300s",
    ],
    { reject: false, all: true },
  );
  if (waited.exitCode !== 0) {
    throw new Error(`OLM's default catalog olm/operatorhubio-catalog never became READY:\n${waited.all}`);
  }
}
