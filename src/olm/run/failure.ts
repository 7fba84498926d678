// What a failed run bundle or bundle-upgrade tells the user and undoes: the diagnostics tsop adds to
// the failed phase (catalog connection, registry pod, OLM's events, Subscription conditions), a hint
// for the failures users hit often, and the rollback of the session's journal in the shared delete
// order (kube/delete.ts), then OLM's Operator object for the package (cleanup.ts).
import { formatDuration } from "../../common/duration.js";
import { ExitCode, TsopError } from "../../common/errors.js";
import { isInterrupted } from "../../common/interrupt.js";
import type { KubeClient } from "../../kube/client.js";
import { deleteAndWait } from "../../kube/delete.js";
import { diagnose } from "../../kube/diagnostics.js";
import { describeRef, type ObjectRef } from "../../kube/objects.js";
import { conditionLines } from "./checks.js";
import { removeOperatorGroupRoles, removeOperatorObject } from "./cleanup.js";
import { messages } from "./messages.js";
import { PhaseError, type Session } from "./session.js";

/** Extra lines for a failed phase: catalog connection, registry pod state and log tail, Subscription conditions. */
export async function phaseDiagnostics(
  client: KubeClient,
  phase: string,
  refs: { catalog?: ObjectRef; pod?: ObjectRef; subscription?: ObjectRef },
): Promise<string[]> {
  const lines: string[] = [];
  const get = (ref: ObjectRef | undefined) =>
    ref ? client.get(ref).catch(() => undefined) : Promise.resolve(undefined);
  if (phase !== "registry pod" && refs.catalog) {
    const cs = await get(refs.catalog);
    if (cs) {
      const state = cs.status?.connectionState;
      lines.push(
        `${describeRef(refs.catalog)}: connection ${state?.lastObservedState ?? "not observed"}${state?.address ? ` (${state.address})` : ""}${cs.status?.reason ? `; ${cs.status.reason}: ${cs.status.message ?? ""}` : ""}`,
      );
    }
  }
  if ((phase === "catalog" || phase === "subscription") && refs.pod) {
    const pod = await get(refs.pod);
    const details = await diagnose(client, refs.pod, pod);
    lines.push(`${describeRef(refs.pod)}:`, ...details.map((l) => `  ${l}`));
  }
  if (phase === "subscription") {
    // OLM reports resolution problems as Warning events on the namespace.
    const namespace = refs.subscription?.namespace ?? "";
    const events = await client
      .list("v1", "Event", { namespace, fieldSelector: "involvedObject.kind=Namespace,type=Warning" })
      .then((r) =>
        r.items.filter(
          (e) => (e as { involvedObject?: { kind?: string } }).involvedObject?.kind === "Namespace",
        ),
      )
      .catch(() => []);
    for (const e of events.slice(-3)) {
      const ev = e as { reason?: string; message?: string };
      lines.push(`namespace ${namespace}: event Warning ${ev.reason ?? ""}: ${ev.message ?? ""}`);
    }
  }
  if (phase === "install plan" || phase === "csv") {
    const sub = await get(refs.subscription);
    if (sub && refs.subscription) {
      const conds = conditionLines(sub).filter((l) => !l.includes("=False"));
      if (conds.length) lines.push(`${describeRef(refs.subscription)}:`, ...conds.map((l) => `  ${l}`));
    }
  }
  return lines;
}

/**
 * Deletes what the session's rollback journal holds (unless kept), in the shared delete order, and
 * returns the final error to throw.
 */
export async function failRun(
  session: Session,
  error: unknown,
  options: {
    refs: { catalog?: ObjectRef; pod?: ObjectRef; subscription?: ObjectRef };
    keepOnFailure: boolean;
    /** false: remove nothing (bundle-upgrade once the Subscription may be moving to the new bundle). */
    rollback?: boolean;
    /** The package whose Subscription the run created: OLM's Operator object for it goes too. */
    packageName?: string;
    /** More diagnostics for the failed phase (the OLM v1 path: its objects' conditions). */
    diagnostics?: (phase: string) => Promise<string[]>;
    /** Kinds removed, and waited for, before the rest of the journal (a ClusterExtension's
     * finalizers need the installer's RBAC, so it goes first). */
    deleteFirst?: readonly string[];
  },
): Promise<TsopError> {
  const phaseError = error instanceof PhaseError ? error : new PhaseError("preparing", error);
  const { client, reporter } = session;
  if (!isInterrupted(phaseError.original)) {
    const extra = await phaseDiagnostics(client, phaseError.phase, options.refs).catch(() => []);
    phaseError.details.push(...extra);
    if (options.diagnostics)
      phaseError.details.push(...(await options.diagnostics(phaseError.phase).catch(() => [])));
  }
  const journal = options.rollback === false ? [] : session.journal();
  let summary = "";
  if (options.keepOnFailure) {
    summary = journal.length ? messages.keptOnFailure(journal) : messages.cleanedUp(0);
  } else if (journal.length === 0) {
    summary = messages.cleanedUp(0);
  } else {
    reporter.warn(`${session.command} failed; removing what this run created`);
    const first = options.deleteFirst ?? [];
    const outcome = await deleteInStages(client, reporter, [
      journal.filter((ref) => first.includes(ref.kind)),
      journal.filter((ref) => !first.includes(ref.kind)),
    ]);
    const namespace = options.refs.subscription?.namespace;
    if (outcome.left.length === 0 && options.packageName && namespace) {
      await removeOperatorObject(client, options.packageName, namespace, reporter, 60_000).catch(
        () => undefined,
      );
    }
    // What OLM made for an OperatorGroup this run created (a real CI run left one ClusterRole).
    if (outcome.left.length === 0) {
      for (const group of journal.filter((ref) => ref.kind === "OperatorGroup" && ref.namespace)) {
        await removeOperatorGroupRoles(client, [group.name], group.namespace!).catch(() => []);
      }
    }
    summary =
      outcome.left.length === 0
        ? messages.cleanedUp(outcome.deleted.length)
        : `could not remove everything this run created:\n${outcome.left.map((l) => `  - ${l}`).join("\n")}`;
  }
  const phaseText =
    phaseError.exitCode === ExitCode.timeout
      ? `${describePhase(phaseError.phase)} (--timeout ${formatDuration(session.timeoutMs)})`
      : describePhase(phaseError.phase);
  const text = [
    messages.failed(session.command, phaseText, phaseError.message),
    ...(phaseError.details.length
      ? ["More from the cluster:", ...phaseError.details.map((l) => `  ${l}`)]
      : []),
    summary,
  ].join("\n");
  return new TsopError(text, {
    hint: hintFor(phaseError),
    exitCode: phaseError.exitCode,
    cause: phaseError.original,
  });
}

/** Deletes each stage and waits for it before the next; a stage that leaves something stops there. */
async function deleteInStages(
  client: KubeClient,
  reporter: Session["reporter"],
  stages: ObjectRef[][],
): Promise<{ deleted: ObjectRef[]; left: string[] }> {
  const deleted: ObjectRef[] = [];
  for (const [index, stage] of stages.entries()) {
    if (stage.length === 0) continue;
    const outcome = await deleteAndWait(client, stage, {
      reporter,
      timeoutMs: 60_000,
      what: "the objects this run created to be deleted",
    });
    deleted.push(...outcome.deleted);
    if (outcome.left.length > 0) {
      const skipped = stages
        .slice(index + 1)
        .flat()
        .map((ref) => `${describeRef(ref)} (kept: removed after the above)`);
      return { deleted, left: [...outcome.left, ...skipped] };
    }
  }
  return { deleted, left: [] };
}

const PHASE_TEXT: Record<string, string> = {
  preparing: "preparing",
  preflight: "checking the cluster",
  "create catalog": "creating the catalog",
  "registry pod": "waiting for the registry pod",
  catalog: "waiting for the CatalogSource to be READY",
  "operator group": "creating the OperatorGroup",
  "create subscription": "creating the Subscription",
  subscription: "waiting for the Subscription to resolve",
  "install plan": "approving and running the InstallPlan",
  csv: "waiting for the ClusterServiceVersion to succeed",
  "old csv": "waiting for the previous ClusterServiceVersion to be replaced",
  "switch catalog": "switching the catalog to the new bundle set",
  "push catalog image": "pushing the catalog image",
  "create objects": "creating the installer's RBAC and the ClusterCatalog",
  "cluster catalog": "waiting for the ClusterCatalog to serve the catalog",
  "create extension": "creating the ClusterExtension",
  extension: "waiting for the ClusterExtension to be Installed",
  "move extension": "moving the ClusterExtension to the new version",
};

export function describePhase(phase: string): string {
  return PHASE_TEXT[phase] ?? phase;
}

/** A specific hint for failures users hit often; otherwise the original one. */
function hintFor(error: PhaseError): string | undefined {
  const pull = /ImagePullBackOff|ErrImagePull/.test(error.message);
  if (error.phase === "csv" && pull) {
    return "the cluster cannot pull the operator's image (named above): push it where the cluster can pull it (check the image in the CSV's deployment), and for a private registry add imagePullSecrets to that deployment's pod spec in the CSV";
  }
  if (/minKubeVersion/.test(error.message) && error.phase === "csv") {
    return "the cluster's Kubernetes is older than the CSV's spec.minKubeVersion: lower minKubeVersion in the CSV (tsop bundle) if the operator works on this version, or use a newer cluster";
  }
  if (pull && error.phase === "subscription") {
    return "the cluster cannot pull the bundle image: push it where the cluster can reach it, and for a private registry pass --pull-secret-name with a secret in the namespace";
  }
  if (pull && error.phase === "registry pod") {
    return "the cluster cannot pull the registry pod's images (--index-image, --init-image): mirror them where the cluster can pull them, or pass --pull-secret-name";
  }
  return error.hint;
}
