// What `tsop test upgrades` checks after the upgrade, per sample (docs/upgrades.md, "What it checks"):
//   lost        the sample still exists at its own apiVersion
//   fields      every field the sample sets reads back with its value (fields.ts): a new schema that
//               drops a field prunes it from every object
//   versions    every version the old CRD served is still served (no conversion webhook turns an
//               unserved version into a served one), every storedVersion is still a version of the CRD,
//               and the sample reads at every served version
//   reconciled  the new operator reconciles it again: tsop sets the readiness condition to Unknown
//               (reason TsopUpgradeCheck, through the status subresource) and waits until it is True
//               again; with --ready-jsonpath (no condition to reset), the jsonpath holds and
//               status.observedGeneration, when the operator writes it, has caught up with the spec
import { formatDuration } from "../common/duration.js";
import { TsopError } from "../common/errors.js";
import { isInterrupted } from "../common/interrupt.js";
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "../kube/client.js";
import { type Condition, conditionsOf, type KubeObject, refKey, splitApiVersion } from "../kube/objects.js";
import { type WaitTarget, waitFor } from "../kube/wait.js";
import { type CrdFacts, crdFor, objectPath, readAt, servedVersions } from "./crd.js";
import type { UpgradeEdge } from "./edges.js";
import { describeDifference, fieldDifferences } from "./fields.js";
import { type Readiness, readyState } from "./readiness.js";
import { type Sample, sampleName } from "./samples.js";

export interface CheckFailure {
  /** "Memcached memcached-sample". */
  sample?: string;
  /** ".spec.size", or "apiVersion cache.example.com/v1alpha1" for a version no longer served. */
  field?: string;
  message: string;
}

export interface CheckInput {
  client: KubeClient;
  reporter: Reporter;
  namespace: string;
  samples: Sample[];
  readiness: Readiness;
  timeoutMs: number;
  signal?: AbortSignal;
  edge: UpgradeEdge;
  /** Each sample as it was when reconciled by the old operator (by refKey). */
  before: Map<string, KubeObject>;
  /** Each sample's CRD before the upgrade (by sample source). */
  crdsBefore: Map<string, CrdFacts | undefined>;
  fieldManager: string;
  /**
   * Whether the new operator is running: false after an upgrade that did not finish (the new CSV
   * never succeeded), when OLM has already replaced the CRD; then only lost, fields and versions are
   * checked, which often name why the new operator cannot start.
   */
  operatorRunning: boolean;
}

const RESET_REASON = "TsopUpgradeCheck";

export function sampleRef(sample: Sample, namespace: string) {
  const o = sample.object;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name ?? "",
    namespace: o.metadata.namespace ?? namespace,
  };
}

export function readyTargets(samples: Sample[], namespace: string, readiness: Readiness): WaitTarget[] {
  return samples.map((s) => ({
    ref: sampleRef(s, namespace),
    check: (obj: KubeObject | undefined) => {
      const state = readyState(obj, readiness);
      return { done: state.ready, status: state.status };
    },
  }));
}

export async function checkAfterUpgrade(input: CheckInput): Promise<CheckFailure[]> {
  const failures: CheckFailure[] = [];
  const present: Array<{ sample: Sample; crd: CrdFacts; object: KubeObject }> = [];
  for (const sample of input.samples) {
    const found = await checkSample(input, sample, failures);
    if (found) present.push({ sample, ...found });
  }
  if (input.operatorRunning)
    for (const p of present) await checkReconciled(input, p.sample, p.crd, p.object, failures);
  return failures;
}

/** lost, fields and versions for one sample; returns the CRD and object when the sample is there. */
async function checkSample(
  input: CheckInput,
  sample: Sample,
  failures: CheckFailure[],
): Promise<{ crd: CrdFacts; object: KubeObject } | undefined> {
  const name = sampleName(sample);
  const fail = (message: string, field?: string) =>
    failures.push({ sample: name, ...(field ? { field } : {}), message });
  const to = input.edge.to.bundle;
  const crd = await crdFor(input.client, sample.object);
  if (!crd) {
    fail(
      `no CustomResourceDefinition serves ${sample.object.apiVersion} ${sample.object.kind} after the upgrade to ${to}: the sample is lost`,
    );
    return undefined;
  }
  const { group, version: own } = splitApiVersion(sample.object.apiVersion);
  const before = input.crdsBefore.get(sample.source);
  const served = servedVersions(crd);
  for (const v of before ? servedVersions(before) : [])
    if (!served.includes(v))
      fail(
        `${to} no longer serves ${group}/${v}, which ${input.edge.from.bundle} served${crd.conversion === "Webhook" ? "" : " (no conversion webhook)"}: clients of ${group}/${v} lose the sample`,
        `apiVersion ${group}/${v}`,
      );
  const versions = new Set(crd.versions.map((v) => v.name));
  for (const stored of crd.storedVersions)
    if (!versions.has(stored))
      fail(
        `the CRD ${crd.name} lists ${stored} in status.storedVersions but no longer defines it: objects stored as ${stored} cannot be read`,
        "status.storedVersions",
      );
  if (!served.includes(own)) return undefined;
  const object = await readAt(input.client, crd, own, sample.object, input.namespace);
  if (!object) {
    fail(
      `the sample is lost: ${sample.object.apiVersion} ${sample.object.kind} ${sample.object.metadata.name ?? ""} is not found after the upgrade to ${to}`,
    );
    return undefined;
  }
  for (const d of fieldDifferences(sample.object, object))
    fail(`${describeDifference(d)} after the upgrade to ${to}: the new schema does not keep it`, d.path);
  for (const v of served)
    if (v !== own && !(await readAt(input.client, crd, v, sample.object, input.namespace)))
      fail(`the sample is not returned at served version ${group}/${v}`, `apiVersion ${group}/${v}`);
  return { crd, object };
}

/** The new operator reconciles the sample again (see the header). */
async function checkReconciled(
  input: CheckInput,
  sample: Sample,
  crd: CrdFacts,
  object: KubeObject,
  failures: CheckFailure[],
): Promise<void> {
  const name = sampleName(sample);
  const ref = sampleRef(sample, input.namespace);
  const readiness = input.readiness;
  if (readiness.kind === "condition") {
    const type = readyState(input.before.get(refKey(ref)), readiness).condition ?? readiness.types[0]!;
    await resetCondition(input, crd, sample, object, type);
  }
  let ready: KubeObject | undefined;
  try {
    ready = (
      await waitFor(
        input.client,
        [
          {
            ref,
            check: (o) => ({ done: readyState(o, readiness).ready, status: readyState(o, readiness).status }),
          },
        ],
        {
          timeoutMs: input.timeoutMs,
          reporter: input.reporter,
          what: `${name} reconciled by ${input.edge.to.bundle}`,
          signal: input.signal,
        },
      )
    ).get(refKey(ref));
  } catch (error) {
    if (isInterrupted(error) || !(error instanceof TsopError)) throw error;
    // What the sample shows now says more than the wait's own message.
    const now = readyState(
      await readAt(
        input.client,
        crd,
        splitApiVersion(ref.apiVersion).version,
        sample.object,
        input.namespace,
      ),
      readiness,
    );
    failures.push({
      sample: name,
      message: `not reconciled again by ${input.edge.to.bundle} within ${formatDuration(input.timeoutMs)}: ${now.status}${
        readiness.kind === "condition"
          ? ` (tsop set the condition to Unknown after the upgrade; an operator that ignores status-only updates never sees that: use --ready-jsonpath for it)`
          : ""
      }`,
    });
    return;
  }
  const generation = ready?.metadata.generation;
  const observed = observedGeneration(ready, readiness);
  if (generation !== undefined && observed !== undefined && observed < generation)
    failures.push({
      sample: name,
      field: "status.observedGeneration",
      message: `reconciled by ${input.edge.to.bundle} but its observedGeneration ${observed} is behind the generation ${generation}`,
    });
}

function observedGeneration(obj: KubeObject | undefined, readiness: Readiness): number | undefined {
  if (readiness.kind === "condition") {
    const c = conditionsOf(obj).find((x) => readiness.types.includes(x.type) && x.status === "True") as
      (Condition & { observedGeneration?: number }) | undefined;
    if (typeof c?.observedGeneration === "number") return c.observedGeneration;
  }
  const top = obj?.status?.observedGeneration;
  return typeof top === "number" ? top : undefined;
}

/** Sets the readiness condition to Unknown, so only a fresh reconcile can make it True again. */
async function resetCondition(
  input: CheckInput,
  crd: CrdFacts,
  sample: Sample,
  object: KubeObject,
  type: string,
) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const conditions = conditionsOf(object).map((c) =>
    c.type === type
      ? {
          ...c,
          status: "Unknown",
          reason: RESET_REASON,
          message: `tsop test upgrades: waiting for ${input.edge.to.bundle} to reconcile`,
          lastTransitionTime: now,
        }
      : c,
  );
  const { version } = splitApiVersion(sample.object.apiVersion);
  const subresource = crd.versions.find((v) => v.name === version)?.statusSubresource ? "status" : undefined;
  await input.client.rest.request(
    "PATCH",
    objectPath(crd, version, sample.object, input.namespace, subresource),
    {
      body: { status: { conditions } },
      contentType: "application/merge-patch+json",
    },
  );
}
