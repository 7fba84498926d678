// One replica of the sharding benchmark (bench/sharding.ts starts 1, 2 or 4): a Widget operator that
// copies spec.round to status.round, sharded. Every 200 ms it writes to $STATE_FILE its peak RSS
// (bytes), CPU time (ms), API requests sent and reconciles done.
import { writeFileSync } from "node:fs";
import { Manager } from "../src/runtime/index.js";

const WIDGET = { apiVersion: "bench.tsop.dev/v1", kind: "Widget" } as const;
interface Widget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec?: { round?: number };
  status?: { round?: number };
}

const namespace = process.env.BENCH_NAMESPACE as string;
const manager = await Manager.create({
  kubeconfigText: process.env.KUBECONFIG_TEXT,
  namespace,
  metricsBindAddress: "0",
  healthProbeBindAddress: "0",
  logger: { format: "json", level: "warn" },
  leaderElection: {
    id: `bench-${namespace}`,
    namespace,
    identity: process.env.IDENTITY,
    // Shorter than the 15/10/2 s defaults (the kill's convergence waits one lease duration, twice
    // if the leader is killed), long enough for a loaded machine.
    leaseDurationSeconds: 8,
    renewDeadlineSeconds: 6,
    retryPeriodSeconds: 1,
  },
  sharding: {},
});
let requests = 0;
const counted = manager.rest.onResponse;
manager.rest.onResponse = (method, status) => {
  requests++;
  counted?.(method, status);
};
let reconciles = 0;
await manager
  .controller(WIDGET)
  .withOptions({ maxConcurrentReconciles: 8 })
  .complete(async (req, ctx) => {
    reconciles++;
    const w = await ctx.client.get<Widget>(WIDGET, req);
    if (!w || w.status?.round === w.spec?.round) return;
    await ctx.client.patch(
      w,
      { status: { round: w.spec?.round ?? 0 } },
      { type: "merge", subresource: "status" },
    );
  });
const state = setInterval(() => {
  const cpu = process.cpuUsage();
  writeFileSync(
    process.env.STATE_FILE as string,
    JSON.stringify({
      rss: process.resourceUsage().maxRSS * 1024,
      cpuMs: (cpu.user + cpu.system) / 1000,
      requests,
      reconciles,
    }),
  );
}, 200);
try {
  await manager.start();
} finally {
  clearInterval(state);
}
