/**
 * The OLM model: a stand-in for OLM's controllers in the fast tier (no Go, no real OLM), running as
 * an ordinary client of tsop/testing's API server with workloads mode running pods and deployments.
 * It exists for what real OLM cannot give a fast test: no build, seconds per run, and faults on
 * demand (a CatalogSource stuck in a state, a CSV forced Failed, slow CSV phases).
 * test/olm/model-parity.real.test.ts runs the same tsop commands against this model and against real
 * OLM on the real bed and compares the outcomes; anything the fast tier relies on belongs there.
 *
 * One pass (triggered by watch events and timers): snapshot (context.ts) → gate (act only while
 * olm-operator / catalog-operator are Available) → operatorgroups.ts → csv.ts → catalog.ts →
 * subscriptions.ts.
 *
 * Modelled: CatalogSource connection state from its registry pod's readiness; file-based catalogs
 * from the ConfigMaps a catalog owns; Subscription resolution (startingCSV or channel head; upgrades
 * through replaces; olm.gvk.required met only by an operator in a catalog,
 * else OLM's ConstraintsNotSatisfiable) → bundle unpack Job → InstallPlan (Manual waits for
 * approval) → execution (CRDs, CSV, service accounts, RBAC labelled olm.owner); the CSV phases
 * Pending → InstallReady → Installing → Succeeded, Failed with OLM's reasons, replacement (old CSV
 * Replacing → Deleting → deleted); OperatorGroup status.namespaces and the install-mode check.
 *
 * Not modelled (the real tier covers them): installing dependencies from other packages (the model
 * says so in the Subscription's condition), copied CSVs, per-group ClusterRoles, packageserver and
 * PackageManifests, gRPC to the registry pod, webhooks, fail-forward, spec.config overrides.
 * InstallPlan steps carry manifests inline instead of ConfigMap references.
 */
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeClient } from "../../../src/kube/client.js";
import { NoKindMatchError } from "../../../src/kube/errors.js";
import type { KubeObject } from "../../../src/kube/objects.js";
import { syncCatalogs } from "./catalog.js";
import {
  deploymentReady,
  type ModelContext,
  type ModelDelays,
  type ModelFaults,
  type ModelOptions,
  OLM,
  takeSnapshot,
} from "./context.js";
import { syncCsvs } from "./csv.js";
import { syncOperatorGroups } from "./operatorgroups.js";
import { syncSubscriptions } from "./subscriptions.js";

export type { ModelDelays, ModelFaults } from "./context.js";

export interface OlmModelOptions {
  /** Kubeconfig of the API server (e.g. cluster.kubeconfigPath); or pass a client. */
  kubeconfigPath?: string;
  client?: KubeClient;
  namespace?: string;
  requireOlmDeployments?: boolean;
  delays?: Partial<ModelDelays>;
  /** Called with errors the model survived (for debugging tests). */
  onError?: (error: unknown) => void;
}

const WATCHED: Array<[string, string]> = [
  ["v1", "Namespace"],
  ["apiextensions.k8s.io/v1", "CustomResourceDefinition"],
  [`${OLM}/v1`, "OperatorGroup"],
  [`${OLM}/v1alpha1`, "CatalogSource"],
  [`${OLM}/v1alpha1`, "Subscription"],
  [`${OLM}/v1alpha1`, "InstallPlan"],
  [`${OLM}/v1alpha1`, "ClusterServiceVersion"],
  ["apps/v1", "Deployment"],
  ["v1", "Pod"],
  ["v1", "ConfigMap"],
  ["v1", "Service"],
  ["batch/v1", "Job"],
];

export class OlmModel {
  readonly faults: ModelFaults = {
    catalogState: new Map(),
    csvFailure: new Map(),
  };
  readonly options: ModelOptions;
  /** Passes run so far (tests can wait for quiet). */
  passes = 0;
  lastError: unknown;
  private readonly controller = new AbortController();
  private running = false;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private readonly loops: Array<Promise<void>> = [];
  /** Waiters for the next pass to start, then for that pass to end. */
  private readonly idleWaiters: Array<() => void> = [];
  private passWaiters: Array<() => void> = [];

  constructor(
    readonly client: KubeClient,
    options: OlmModelOptions,
  ) {
    this.options = {
      namespace: options.namespace ?? "olm",
      requireOlmDeployments: options.requireOlmDeployments ?? true,
      delays: {
        csvPhaseMs: 0,
        installTimeoutMs: 300_000,
        ...options.delays,
      },
    };
    this.onError = options.onError;
  }
  private readonly onError: ((error: unknown) => void) | undefined;

  start(): void {
    setMaxListeners(0, this.controller.signal);
    for (const [apiVersion, kind] of WATCHED) this.loops.push(this.watchLoop(apiVersion, kind));
    this.trigger();
  }

  async stop(): Promise<void> {
    this.controller.abort();
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled(this.loops);
    while (this.running) await sleep(10);
    this.client.close();
  }

  /** Requests a reconcile pass (also used by tests after changing faults or delays). */
  trigger(): void {
    if (this.controller.signal.aborted) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.schedule(Date.now() + 5);
  }

  /** Resolves once a whole pass that started after this call has completed. */
  idle(): Promise<void> {
    const done = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.trigger();
    return done;
  }

  private schedule(at: number): void {
    if (this.controller.signal.aborted) return;
    if (this.timer && at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        void this.pass();
      },
      Math.max(0, at - Date.now()),
    );
  }

  private async watchLoop(apiVersion: string, kind: string): Promise<void> {
    const signal = this.controller.signal;
    let delay = 100;
    while (!signal.aborted) {
      try {
        const { resourceVersion } = await this.client.list(apiVersion, kind, { namespace: "" });
        delay = 100;
        this.trigger();
        await this.client.watch(
          apiVersion,
          kind,
          { namespace: "", resourceVersion, timeoutSeconds: 60, signal },
          () => this.trigger(),
        );
      } catch (error) {
        if (signal.aborted) return;
        if (!(error instanceof NoKindMatchError)) this.onError?.(error);
        await sleep(delay, undefined, { signal }).catch(() => {});
        delay = Math.min(delay * 2, 1000);
      }
    }
  }

  private async pass(): Promise<void> {
    if (this.running || this.controller.signal.aborted) return;
    this.running = true;
    this.dirty = false;
    this.passWaiters = this.idleWaiters.splice(0);
    let wake = Number.POSITIVE_INFINITY;
    try {
      const snap = await takeSnapshot(this.client);
      const ctx: ModelContext = {
        client: this.client,
        options: this.options,
        faults: this.faults,
        snap,
        now: Date.now(),
        wakeAt: (time) => {
          wake = Math.min(wake, time);
        },
        patchStatus: async (obj, status) => {
          await this.client.mergePatch(
            {
              apiVersion: obj.apiVersion,
              kind: obj.kind,
              namespace: obj.metadata.namespace,
              name: obj.metadata.name ?? "",
            },
            { status },
            "status",
          );
        },
        event: (obj, type, reason, message) => this.event(obj, type, reason, message),
      };
      const olmDeployment = (name: string) =>
        !this.options.requireOlmDeployments ||
        deploymentReady(
          snap.deployments.find(
            (d) => d.metadata.name === name && d.metadata.namespace === this.options.namespace,
          ),
        ).ready;
      if (olmDeployment("olm-operator")) {
        await syncOperatorGroups(ctx);
        await syncCsvs(ctx);
      }
      if (olmDeployment("catalog-operator")) {
        await syncCatalogs(ctx);
        await syncSubscriptions(ctx);
      }
    } catch (error) {
      if (!this.controller.signal.aborted) {
        this.lastError = error;
        this.onError?.(error);
        wake = Math.min(wake, Date.now() + 200);
      }
    } finally {
      this.passes++;
      this.running = false;
    }
    for (const resolve of this.passWaiters.splice(0)) resolve();
    if (this.dirty || this.idleWaiters.length > 0) this.schedule(Date.now() + 5);
    else if (wake !== Number.POSITIVE_INFINITY) this.schedule(wake);
  }

  private async event(obj: KubeObject, type: string, reason: string, message: string): Promise<void> {
    const now = new Date().toISOString();
    try {
      await this.client.create({
        apiVersion: "v1",
        kind: "Event",
        metadata: { generateName: `${obj.metadata.name}.`, namespace: obj.metadata.namespace ?? "default" },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          namespace: obj.metadata.namespace,
          uid: obj.metadata.uid,
        },
        reason,
        message,
        type,
        source: {
          component: obj.kind === "ClusterServiceVersion" ? "operator-lifecycle-manager" : "catalog-operator",
        },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
    } catch {
      // events are best-effort, as in Kubernetes
    }
  }
}

export async function startOlmModel(options: OlmModelOptions): Promise<OlmModel> {
  const client =
    options.client ??
    (await KubeClient.connect({
      kubeconfig: options.kubeconfigPath,
      env: {},
      retry: { attempts: 8, baseDelayMs: 50, maxDelayMs: 500 },
    }));
  const model = new OlmModel(client, options);
  model.start();
  return model;
}
