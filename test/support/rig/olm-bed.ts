// The real test bed with OLM for real-tier tests: the real control plane prepared for the pod
// runner, the runner, and OLM installed by `tsop olm install` (unless `olm: false`).
import { startTestCluster } from "../../../src/testing/index.js";
import type { RealTestCluster } from "../../../src/testing/real/types.js";
import { type OlmOnRig, prepareOlmRig, startOlmOnRig } from "../olm-rig.js";
import { rigBinary } from "../rig.js";

export interface OlmBedOptions {
  /** Install OLM with `tsop olm install` (default true). */
  olm?: boolean;
  /** Namespaces created at start. */
  namespaces?: string[];
  /** Images kwok reports as unpullable (ImagePullBackOff) for the pods it simulates. */
  unpullableImages?: string[];
  /** The bed's registry mirror (rig/mirror.ts's serveMirror): pods using mirrored images run for real. */
  mirror?: { sources: readonly string[]; registriesConf: string };
}

export interface OlmBed {
  cluster: RealTestCluster;
  olm: OlmOnRig;
  stop(): Promise<void>;
}

export async function startOlmBed(options: OlmBedOptions = {}): Promise<OlmBed> {
  const prepared = await prepareOlmRig(options.unpullableImages, options.mirror?.sources);
  const cluster = (await startTestCluster({
    controlPlane: "real",
    workloads: true,
    namespaces: options.namespaces,
    ...prepared.clusterOptions,
  })) as RealTestCluster;
  let olm: OlmOnRig;
  try {
    olm = await startOlmOnRig(cluster, prepared, {
      install: options.olm !== false,
      binary: rigBinary,
      ...(options.mirror ? { mirror: options.mirror } : {}),
      // TSOP_RUNNER_DEBUG=1 prints what the pod runner runs and what fails.
      log: process.env.TSOP_RUNNER_DEBUG ? (m) => console.error(`pod runner: ${m}`) : undefined,
    });
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return {
    cluster,
    olm,
    async stop() {
      await olm.stop();
      await cluster.stop();
    },
  };
}
