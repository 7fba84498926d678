// The OLM half of a run, shared by run bundle and bundle-upgrade: wait for the Subscription to point
// at a new InstallPlan, approve it only if it installs exactly the expected CSV, wait for the plan
// to complete and the CSV to reach Succeeded (watch-based, with OLM's reasons on failure).
import { errorFrom } from "../../common/errors.js";
import type { KubeObject, ObjectRef } from "../../kube/objects.js";
import type { CheckResult } from "../../kube/wait.js";
import { csvCheck, installPlanCheck, subscriptionCheck } from "./checks.js";
import { messages } from "./messages.js";
import { V1ALPHA1 } from "./names.js";
import type { Session } from "./session.js";

export interface InstallFlowResult {
  installPlan: string;
  csv: KubeObject;
}

export async function resolveAndInstall(
  session: Session,
  subscription: ObjectRef,
  options: { csvName: string; previousPlan?: string; csvFailedGraceMs: number },
): Promise<InstallFlowResult> {
  const { client, reporter } = session;
  const namespace = subscription.namespace ?? "";
  const resolved = await session.waitPhase(
    "subscription",
    subscription,
    subscriptionCheck(options.previousPlan),
    {
      before: "the Subscription resolved",
      what: `Subscription ${namespace}/${subscription.name} to be resolved`,
    },
  );
  const sub = [...resolved.values()][0];
  const planRef = sub?.status?.installPlanRef as { name: string; namespace?: string } | undefined;
  const planName = planRef?.name ?? "";
  const plan: ObjectRef = {
    apiVersion: V1ALPHA1,
    kind: "InstallPlan",
    namespace: planRef?.namespace ?? namespace,
    name: planName,
  };

  await session.phase("install plan", async () => {
    const current = await client.get(plan);
    const names = (current?.spec?.clusterServiceVersionNames ?? []) as string[];
    if (!names.includes(options.csvName)) {
      throw errorFrom(messages.planWithoutCsv(planName, options.csvName, names));
    }
    const others = names.filter((n) => n !== options.csvName);
    if (others.length > 0) {
      const dependencies = await newDependencies(session, plan, others);
      const foreign = others.filter((n) => !dependencies.includes(n));
      if (foreign.length > 0) {
        throw errorFrom(messages.foreignPlan(planName, options.csvName, foreign));
      }
      reporter.info(
        `InstallPlan ${planName} also installs ${dependencies.join(", ")}: dependencies OLM resolved for ${options.csvName}, each with a new Subscription`,
      );
    }
    if (current?.spec?.approved !== true) {
      session.checkInterrupted();
      await client.mergePatch(plan, { spec: { approved: true } });
      reporter.success(`Approved InstallPlan ${planName} (installs ${options.csvName})`);
    }
    await session.waitUntil(plan, installPlanCheck, {
      before: "the InstallPlan completed",
      what: `InstallPlan ${namespace}/${planName} to complete`,
    });
  });

  const csvRef: ObjectRef = {
    apiVersion: V1ALPHA1,
    kind: "ClusterServiceVersion",
    namespace,
    name: options.csvName,
  };
  const grace = options.csvFailedGraceMs;
  const done = await session.waitPhase("csv", csvRef, csvCheck(grace), {
    before: "the ClusterServiceVersion succeeded",
    what: `ClusterServiceVersion ${namespace}/${options.csvName} to succeed`,
    // Re-evaluate a Failed CSV's grace period even when no event arrives.
    relistIntervalMs: Math.max(250, Math.min(10_000, Math.floor(grace / 2))),
  });
  const csv = [...done.values()][0] as KubeObject;
  return { installPlan: planName, csv };
}

/** InstallPlan steps once OLM has computed them (after unpacking the bundles it needs). */
function planStepsCheck(obj: KubeObject | undefined): CheckResult {
  const base = installPlanCheck(obj);
  if (base.failed || base.done) return base;
  const steps = (obj?.status?.plan ?? []) as unknown[];
  if (steps.length > 0 && obj?.status?.phase === "RequiresApproval")
    return { done: true, status: "steps known" };
  return { done: false, status: `${base.status}; waiting for OLM to list the plan's steps` };
}

/**
 * Of `others` (CSVs in the plan besides the bundle's), those OLM resolved as new dependencies: the
 * plan creates a Subscription for them. A CSV without one belongs to an existing Subscription of the
 * namespace (a pending change tsop must not approve on the user's behalf).
 */
async function newDependencies(session: Session, plan: ObjectRef, others: string[]): Promise<string[]> {
  const done = await session.waitUntil(plan, planStepsCheck, {
    before: "the InstallPlan listed its steps",
    what: `InstallPlan ${plan.namespace}/${plan.name} to list its steps`,
  });
  const steps = ([...done.values()][0]?.status?.plan ?? []) as Array<{
    resolving?: string;
    resource?: { kind?: string };
  }>;
  return others.filter((csv) =>
    steps.some((step) => step.resolving === csv && step.resource?.kind === "Subscription"),
  );
}
