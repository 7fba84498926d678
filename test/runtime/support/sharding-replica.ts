// One replica of a sharded operator, as its own process (sharding.real.test.ts starts several): the
// fault suite's Widget reconciler (an owned ConfigMap per Widget) with sharding on. Each reconcile
// appends "start|end <key> <ms>" to $OVERLAP_FILE (wall-clock ms, one machine: comparable across
// processes), and every 100 ms it writes the Widget and ConfigMap names its cache holds to
// $STATE_FILE. Exits 1 when start() rejects (e.g. its shard Lease could not be renewed).
import { appendFileSync, writeFileSync } from "node:fs";
import { Manager } from "../../../src/runtime/index.js";
import { CONFIGMAP, WIDGET, widgetReconciler } from "./fault-suite-operator.js";

const identity = process.env.IDENTITY as string;
const now = () => performance.timeOrigin + performance.now();
const manager = await Manager.create({
  kubeconfigText: process.env.KUBECONFIG_TEXT,
  metricsBindAddress: "0",
  healthProbeBindAddress: "0",
  logger: { format: "json", level: (process.env.LOG_LEVEL as "info") ?? "info" },
  leaderElection: {
    id: "sharding-real.example.com",
    namespace: "default",
    identity,
    leaseDurationSeconds: 4,
    renewDeadlineSeconds: 3,
    retryPeriodSeconds: 0.5,
  },
  sharding: {},
});
await manager
  .controller(WIDGET)
  .owns(CONFIGMAP)
  .complete({
    async reconcile(req, ctx) {
      const key = `${req.namespace}/${req.name}`;
      appendFileSync(process.env.OVERLAP_FILE as string, `start ${key} ${now()}\n`);
      try {
        return await widgetReconciler.reconcile(req, ctx);
      } finally {
        appendFileSync(process.env.OVERLAP_FILE as string, `end ${key} ${now()}\n`);
      }
    },
  });
const names = async (kind: typeof WIDGET | typeof CONFIGMAP) =>
  (await manager.informerFor(kind))
    .list()
    .map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)
    .sort();
const state = setInterval(() => {
  void Promise.all([names(WIDGET), names(CONFIGMAP)]).then(([widgets, configMaps]) =>
    writeFileSync(process.env.STATE_FILE as string, JSON.stringify({ widgets, configMaps })),
  );
}, 100);
try {
  await manager.start();
} catch (err) {
  console.error(`replica ${identity} stopped: ${(err as Error).message}`);
  process.exit(1);
} finally {
  clearInterval(state);
}
