// What tsop prints when a wait fails: the object's conditions, its recent Events, and for workloads
// the pods' container waiting reasons and a log tail. Every lookup is best-effort and bounded, so
// a diagnostic never hides the original failure.
import type { KubeClient } from "./client.js";
import { type ContainerStatus, conditionsOf, type KubeObject, type ObjectRef } from "./objects.js";

const MAX_EVENTS = 5;
const LOG_LINES = 10;

export async function diagnose(
  client: KubeClient,
  ref: ObjectRef,
  last: KubeObject | undefined,
): Promise<string[]> {
  const work = collect(client, ref, last).catch((error) => [
    `(could not collect diagnostics: ${(error as Error).message})`,
  ]);
  const limit = new Promise<string[]>((resolve) => {
    const timer = setTimeout(() => resolve(["(diagnostics timed out)"]), 10_000);
    timer.unref();
  });
  return Promise.race([work, limit]);
}

async function collect(client: KubeClient, ref: ObjectRef, last: KubeObject | undefined): Promise<string[]> {
  const obj = (await client.get(ref).catch(() => undefined)) ?? last;
  if (!obj) return ["not found"];
  const lines: string[] = [];
  lines.push(...describeState(obj));
  lines.push(...(await recentEvents(client, obj)));
  if (obj.kind === "Deployment") lines.push(...(await deploymentPods(client, obj)));
  if (obj.kind === "Pod") lines.push(...(await podDetails(client, obj)));
  if (obj.kind === "ClusterServiceVersion") {
    for (const d of (obj.spec?.install?.spec?.deployments ?? []) as Array<{ name?: string }>) {
      if (!d.name) continue;
      const dep = await client
        .get({ apiVersion: "apps/v1", kind: "Deployment", namespace: obj.metadata.namespace, name: d.name })
        .catch(() => undefined);
      if (!dep) {
        lines.push(`deployment ${d.name}: not created yet`);
        continue;
      }
      lines.push(`deployment ${d.name}:`);
      lines.push(...describeState(dep).map((l) => `  ${l}`));
      lines.push(...(await deploymentPods(client, dep)).map((l) => `  ${l}`));
    }
  }
  return lines;
}

export function describeState(obj: KubeObject): string[] {
  const lines: string[] = [];
  const status = obj.status ?? {};
  if (typeof status.phase === "string") {
    lines.push(
      `phase ${status.phase}${status.reason ? ` (${status.reason})` : ""}${status.message ? `: ${status.message}` : ""}`,
    );
  }
  for (const c of conditionsOf(obj)) {
    if (!c.type) continue;
    lines.push(
      `condition ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ""}${c.message ? `: ${c.message}` : ""}`,
    );
  }
  if (obj.metadata.deletionTimestamp) {
    const finalizers = obj.metadata.finalizers ?? [];
    lines.push(
      `being deleted${finalizers.length ? `; waiting for finalizers: ${finalizers.join(", ")}` : ""}`,
    );
  }
  return lines;
}

async function recentEvents(client: KubeClient, obj: KubeObject): Promise<string[]> {
  const namespace = obj.metadata.namespace ?? "default";
  try {
    const { items } = await client.list("v1", "Event", {
      namespace,
      fieldSelector: `involvedObject.name=${obj.metadata.name}`,
    });
    const mine = items
      .filter(
        (e) =>
          (e as Record<string, { name?: string; kind?: string }>).involvedObject?.name ===
            obj.metadata.name && (e as Record<string, { kind?: string }>).involvedObject?.kind === obj.kind,
      )
      .sort((a, b) => eventTime(a).localeCompare(eventTime(b)))
      .slice(-MAX_EVENTS);
    return mine.map((e) => {
      const ev = e as Record<string, unknown>;
      const count = typeof ev.count === "number" && ev.count > 1 ? ` (x${ev.count})` : "";
      return `event ${ev.type ?? "Normal"} ${ev.reason ?? ""}: ${ev.message ?? ""}${count}`;
    });
  } catch {
    return [];
  }
}

function eventTime(e: KubeObject): string {
  const ev = e as Record<string, unknown>;
  return String(ev.lastTimestamp ?? ev.eventTime ?? e.metadata.creationTimestamp ?? "");
}

async function deploymentPods(client: KubeClient, dep: KubeObject): Promise<string[]> {
  const match = (dep.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
  const selector = Object.entries(match)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  if (!selector) return [];
  try {
    const { items } = await client.list("v1", "Pod", {
      namespace: dep.metadata.namespace,
      labelSelector: selector,
    });
    if (items.length === 0) return ["no pods"];
    const lines: string[] = [];
    for (const pod of items.slice(0, 3)) lines.push(...(await podDetails(client, pod)));
    return lines;
  } catch {
    return [];
  }
}

async function podDetails(client: KubeClient, pod: KubeObject): Promise<string[]> {
  const name = pod.metadata.name ?? "";
  const namespace = pod.metadata.namespace ?? "";
  const lines = [`pod ${name}: ${pod.status?.phase ?? "Unknown"}`];
  const statuses = [
    ...((pod.status?.initContainerStatuses ?? []) as ContainerStatus[]),
    ...((pod.status?.containerStatuses ?? []) as ContainerStatus[]),
  ];
  for (const cs of statuses) {
    if (cs.ready) continue;
    const waiting = cs.state?.waiting;
    const terminated = cs.state?.terminated ?? cs.lastState?.terminated;
    if (waiting) {
      lines.push(
        `  container ${cs.name} waiting: ${waiting.reason ?? "unknown"}${waiting.message ? ` (${waiting.message})` : ""}${cs.image ? `; image ${cs.image}` : ""}`,
      );
    } else if (terminated) {
      lines.push(
        `  container ${cs.name} terminated: ${terminated.reason ?? ""} exit code ${terminated.exitCode ?? "?"}`,
      );
    } else {
      lines.push(`  container ${cs.name} not ready`);
    }
    // Pull failures have no logs; anything that ran may have said why it is unhappy.
    if (waiting?.reason === "ErrImagePull" || waiting?.reason === "ImagePullBackOff") continue;
    const log = (await client.logs(namespace, name, cs.name, LOG_LINES)).trimEnd();
    if (log) {
      lines.push(`  last log lines of ${cs.name}:`);
      lines.push(...log.split("\n").map((l) => `    ${l}`));
    }
  }
  return lines;
}
