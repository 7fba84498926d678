// manager.add(runnable) and per-controller leader election: leader-only runnables run on the
// replica that leads, the others on every replica; a failing runnable stops the manager, named;
// shutdown aborts runnables' signals and waits for them.
import { afterEach, expect, it } from "vitest";
import type { Manager } from "../../src/runtime/manager/manager.js";
import { type Harness, harness } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const election = {
  id: "runnables-test",
  namespace: "default",
  leaseDurationSeconds: 2,
  renewDeadlineSeconds: 1.5,
  retryPeriodSeconds: 0.2,
};

function tracker() {
  const t = { started: 0, aborted: 0, finished: 0 };
  return {
    t,
    runnable: (needLeaderElection?: boolean) => ({
      ...(needLeaderElection === undefined ? {} : { needLeaderElection }),
      async start(signal: AbortSignal) {
        t.started++;
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        t.aborted++;
        await new Promise((r) => setTimeout(r, 100)); // some cleanup the shutdown must wait for
        t.finished++;
      },
    }),
  };
}

it("starts runnables, aborts their signal at stop and waits for them", async () => {
  h = await harness();
  const m = await h.startManager();
  const leader = tracker();
  const other = tracker();
  m.add(leader.runnable());
  m.add(other.runnable(false));
  const running = m.start();
  await waitFor("both runnables started", () => leader.t.started === 1 && other.t.started === 1);
  await m.stop();
  await running;
  expect(leader.t).toEqual({ started: 1, aborted: 1, finished: 1 });
  expect(other.t).toEqual({ started: 1, aborted: 1, finished: 1 });
});

it("a runnable added after start starts at once", async () => {
  h = await harness();
  const m = await h.startManager();
  const running = m.start();
  await m.elected();
  await waitFor("controllers started", () => m.isLeader());
  const late = tracker();
  m.add(late.runnable());
  await waitFor("the late runnable started", () => late.t.started === 1);
  await m.stop();
  await running;
  expect(late.t.finished).toBe(1);
});

it("a runnable's error stops the manager and start() rejects naming it", async () => {
  h = await harness();
  const m = await h.startManager();
  const other = tracker();
  m.add(other.runnable(false));
  m.add({
    name: "cert-rotator",
    async start() {
      await new Promise((r) => setTimeout(r, 50));
      throw new Error("cannot read the CA");
    },
  });
  await expect(m.start()).rejects.toThrow(/runnable cert-rotator failed: cannot read the CA/);
  expect(other.t.finished).toBe(1);
});

it("rejects what is not a runnable, saying what to pass", async () => {
  h = await harness();
  const m = await h.startManager();
  expect(() => m.add({} as never)).toThrow(/start\(signal\)/);
});

it("with leader election: leader-only runnables and controllers run on the leader, the others on every replica", async () => {
  h = await harness();
  const replicas: Array<{
    m: Manager;
    leader: ReturnType<typeof tracker>;
    other: ReturnType<typeof tracker>;
    seen: string[];
    seenByLeaderOnly: string[];
  }> = [];
  for (let i = 0; i < 2; i++) {
    const m = await h.startManager({ leaderElection: election });
    const leader = tracker();
    const other = tracker();
    m.add(leader.runnable());
    m.add(other.runnable(false));
    const seen: string[] = [];
    const seenByLeaderOnly: string[] = [];
    await m
      .controller({ apiVersion: "v1", kind: "ConfigMap" })
      .named("every-replica")
      .withOptions({ needLeaderElection: false })
      .complete(async (req) => void seen.push(req.name));
    await m
      .controller({ apiVersion: "v1", kind: "ConfigMap" })
      .named("leader-only")
      .complete(async (req) => void seenByLeaderOnly.push(req.name));
    m.start().catch(() => {});
    replicas.push({ m, leader, other, seen, seenByLeaderOnly });
  }
  await Promise.race(replicas.map((r) => r.m.elected()));
  await h.client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "probe", namespace: "default" },
  });
  await waitFor("both replicas reconciled with the every-replica controller", () =>
    replicas.every((r) => r.seen.includes("probe")),
  );
  const [lead, follow] = replicas[0]!.m.isLeader() ? replicas : [replicas[1]!, replicas[0]!];
  await waitFor(
    "the leader's leader-only work",
    () => lead!.leader.t.started === 1 && lead!.seenByLeaderOnly.includes("probe"),
  );
  expect(follow!.m.isLeader()).toBe(false);
  expect(follow!.leader.t.started).toBe(0);
  expect(follow!.seenByLeaderOnly).toEqual([]);
  expect(lead!.other.t.started).toBe(1);
  expect(follow!.other.t.started).toBe(1);
  // The leader stops: the standby takes over and starts its leader-only runnable.
  await lead!.m.stop();
  await waitFor("the standby's leader-only runnable", () => follow!.leader.t.started === 1, 10_000);
});
