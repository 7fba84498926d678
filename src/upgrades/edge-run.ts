// One upgrade edge on the cluster, step by step, each timed: install the `from` bundle through OLM
// (olm/run's runBundle: its catalog of one bundle in ConfigMaps, registry pod, Subscription) →
// apply the samples → wait until each is reconciled → upgrade along the edge (bundleUpgrade adds the
// `to` bundle to that catalog as the channel's head replacing `from`, so the Subscription moves along
// exactly this edge) → check what the upgrade did to the samples (checks.ts) → cleanup (olm/run's
// cleanup with its CRDs, so the next edge starts from nothing). A failed step ends the edge (the
// cleanup still runs), except that a failed upgrade is still followed by the checks that need no
// new operator (the new CRD is in place by then); a failed check is recorded and the others still run.
import { isInterrupted } from "../common/interrupt.js";
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "../kube/client.js";
import type { KubeObject } from "../kube/objects.js";
import { type WaitTarget, waitFor } from "../kube/wait.js";
import { bundleUpgrade, cleanup, runBundle } from "../olm/run/index.js";
import type { SecurityContextConfig } from "../olm/run/plan.js";
import type { BundlePullOptions } from "../olm/run/pull-options.js";
import { type CheckFailure, checkAfterUpgrade, readyTargets } from "./checks.js";
import { crdFor } from "./crd.js";
import { edgeName, type UpgradeEdge } from "./edges.js";
import type { Readiness } from "./readiness.js";
import { type Sample, sampleName } from "./samples.js";

export const FIELD_MANAGER = "tsop-test-upgrades";

export interface EdgeRunOptions extends BundlePullOptions {
  client: KubeClient;
  reporter: Reporter;
  namespace: string;
  samples: Sample[];
  readiness: Readiness;
  /** Budget of each OLM step (install, upgrade, cleanup) and of each wait for the samples. */
  timeoutMs: number;
  installMode?: string;
  indexImage?: string;
  initImage?: string;
  pullSecretName?: string;
  serviceAccount?: string;
  securityContext?: SecurityContextConfig;
  csvFailedGraceMs?: number;
  signal?: AbortSignal;
}

export interface StepResult {
  step: "install" | "samples" | "reconciled" | "upgrade" | "check" | "cleanup";
  ms: number;
  ok: boolean;
}

export interface EdgeFailure extends CheckFailure {
  step: StepResult["step"];
}

export interface EdgeResult {
  edge: string;
  package: string;
  from: UpgradeEdge["from"];
  to: UpgradeEdge["to"];
  channels: string[];
  kinds: string[];
  ok: boolean;
  steps: StepResult[];
  failures: EdgeFailure[];
}

class StepFailed extends Error {}

export async function runEdge(edge: UpgradeEdge, options: EdgeRunOptions): Promise<EdgeResult> {
  const { reporter } = options;
  const result: EdgeResult = {
    edge: edgeName(edge),
    package: edge.package,
    from: edge.from,
    to: edge.to,
    channels: edge.channels,
    kinds: edge.kinds,
    ok: false,
    steps: [],
    failures: [],
  };
  const step = async <T>(name: StepResult["step"], work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const before = result.failures.length;
    try {
      const value = await work();
      result.steps.push({ step: name, ms: Date.now() - started, ok: result.failures.length === before });
      return value;
    } catch (error) {
      result.steps.push({ step: name, ms: Date.now() - started, ok: false });
      if (isInterrupted(error)) throw error;
      if (!(error instanceof StepFailed))
        result.failures.push({ step: name, message: (error as Error).message.split("\n")[0] ?? "" });
      throw new StepFailed();
    }
  };
  reporter.info(`Edge ${result.edge} (${edge.kinds.join(", ")}; channel ${edge.channels.join(", ")})`);
  let installed = false;
  try {
    await step("install", () =>
      runBundle({
        ...olmOptions(options),
        image: edge.from.image,
        installMode: options.installMode,
        indexImage: options.indexImage,
      }),
    );
    installed = true;
    await step("samples", () => applySamples(options));
    const before = await step("reconciled", () =>
      waitReconciled(options, `the samples reconciled by ${edge.from.bundle}`),
    );
    const crdsBefore = await step("reconciled", () => crdsOf(options));
    const check = (operatorRunning: boolean) =>
      step("check", async () => {
        for (const f of await checkAfterUpgrade({
          ...options,
          edge,
          before,
          crdsBefore,
          fieldManager: FIELD_MANAGER,
          operatorRunning,
        }))
          result.failures.push({ step: "check", ...f });
      });
    try {
      await step("upgrade", () => bundleUpgrade({ ...olmOptions(options), image: edge.to.image }));
    } catch (error) {
      // OLM applies the new CRD before it starts the new operator: what the CRD did to the samples
      // is known even when the operator never came up, and is often why it did not.
      if (error instanceof StepFailed) await check(false).catch(() => undefined);
      throw error;
    }
    await check(true);
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
  } finally {
    // A failed install has rolled itself back (run bundle); anything later leaves an install to remove.
    if (installed) await cleanEdge(edge, options, step);
  }
  result.steps = mergeSteps(result.steps);
  result.ok = result.failures.length === 0;
  if (result.ok) reporter.success(`Edge ${result.edge}: passed`);
  else reporter.error(`Edge ${result.edge}: ${result.failures.length} failure(s)`);
  return result;
}

function olmOptions(options: EdgeRunOptions) {
  return {
    client: options.client,
    reporter: options.reporter,
    namespace: options.namespace,
    timeoutMs: options.timeoutMs,
    initImage: options.initImage,
    pullSecretName: options.pullSecretName,
    serviceAccount: options.serviceAccount,
    securityContext: options.securityContext,
    csvFailedGraceMs: options.csvFailedGraceMs,
    skipTlsVerify: options.skipTlsVerify,
    plainHttp: options.plainHttp,
    registryConfig: options.registryConfig,
    pull: options.pull,
    signal: options.signal,
  };
}

/** The sample in the test's namespace unless it names its own. */
export function placed(sample: KubeObject, namespace: string): KubeObject {
  return sample.metadata.namespace ? sample : { ...sample, metadata: { ...sample.metadata, namespace } };
}

async function applySamples(options: EdgeRunOptions): Promise<void> {
  for (const s of options.samples) {
    options.reporter.info(`Applying ${sampleName(s)} (${s.source})`);
    await options.client.apply(placed(s.object, options.namespace), FIELD_MANAGER);
  }
}

/** Waits until every sample is ready; returns them as they were then. */
export async function waitReconciled(
  options: EdgeRunOptions,
  what: string,
): Promise<Map<string, KubeObject>> {
  const targets: WaitTarget[] = readyTargets(options.samples, options.namespace, options.readiness);
  const seen = await waitFor(options.client, targets, {
    timeoutMs: options.timeoutMs,
    reporter: options.reporter,
    what,
    signal: options.signal,
  });
  return new Map([...seen].flatMap(([k, v]) => (v ? [[k, v] as const] : [])));
}

/** Each sample's CRD as it is before the upgrade (sample source → CRD). */
async function crdsOf(options: EdgeRunOptions) {
  const out = new Map<string, Awaited<ReturnType<typeof crdFor>>>();
  for (const s of options.samples) out.set(s.source, await crdFor(options.client, s.object));
  return out;
}

async function cleanEdge(
  edge: UpgradeEdge,
  options: EdgeRunOptions,
  step: <T>(name: StepResult["step"], work: () => Promise<T>) => Promise<T>,
): Promise<void> {
  try {
    await step("cleanup", () =>
      cleanup({
        client: options.client,
        reporter: options.reporter,
        namespace: options.namespace,
        packageName: edge.package,
        timeoutMs: options.timeoutMs,
        deleteCrds: true,
        signal: options.signal,
      }),
    );
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
  }
}

/** One row per step: a step run twice (the two reads of "reconciled") adds up. */
function mergeSteps(steps: StepResult[]): StepResult[] {
  const out: StepResult[] = [];
  for (const s of steps) {
    const last = out.find((o) => o.step === s.step);
    if (last) {
      last.ms += s.ms;
      last.ok &&= s.ok;
    } else out.push({ ...s });
  }
  return out;
}
