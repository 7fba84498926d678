// The tsop twin of bench/runtime-twin/go/main.go for `npm run bench:vs-runtime`: one Widget kind
// (bench.tsop.dev/v1, spec.data → status.observed) that owns one ConfigMap per Widget, written as
// docs/runtime.md shows (client.get, createOrUpdate with an owner, updateStatus), 4 workers, leader
// election only with --leader-elect. Run from a directory whose node_modules/tsop is this checkout.
import {
  createOrUpdate,
  CustomResource,
  KubeObject,
  Manager,
  managerOptionsFromArgs,
  MANAGER_FLAGS_HELP,
  type ReconcileContext,
  type Reconciler,
  type Request,
  Status,
  updateStatus,
} from "tsop";

export interface WidgetSpec {
  data?: string;
}

export interface WidgetStatus {
  observed?: string;
}

@CustomResource({ group: "bench.tsop.dev", version: "v1" })
@Status()
export class Widget extends KubeObject<WidgetSpec, WidgetStatus> {}

interface ConfigMap {
  apiVersion: "v1";
  kind: "ConfigMap";
  metadata: { name: string; namespace: string };
  data?: Record<string, string>;
}

/** Reconcile calls; SIGUSR2 prints the count (the benchmark's reconciles per Widget). */
let reconciles = 0;
process.on("SIGUSR2", () => process.stderr.write(`bench-reconciles ${reconciles}\n`));

export class WidgetReconciler implements Reconciler {
  async reconcile(req: Request, { client }: ReconcileContext): Promise<undefined> {
    reconciles++;
    const widget = await client.get(Widget, req);
    if (!widget) return; // already deleted
    const data = widget.spec?.data ?? "";
    await createOrUpdate<ConfigMap>(
      client,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: req.name, namespace: req.namespace } },
      (cm) => {
        cm.data = { data };
      },
      { owner: widget },
    );
    if (widget.status?.observed !== data) {
      widget.status = { ...widget.status, observed: data };
      await updateStatus(client, widget);
    }
    return;
  }
}

const options = managerOptionsFromArgs(process.argv.slice(2), process.env, {
  metricsBindAddress: "0",
  healthProbeBindAddress: "0",
  leaderElection: { id: "widget-operator.bench.tsop.dev" },
});
if (options.help) {
  console.log(MANAGER_FLAGS_HELP);
  process.exit(0);
}
const manager = await Manager.create(options);
await manager
  .controller(Widget)
  .owns({ apiVersion: "v1", kind: "ConfigMap" })
  .withOptions({ maxConcurrentReconciles: 4 })
  .complete(new WidgetReconciler());
await manager.start();
