// The fault suite's operator, written with the public runtime API exactly as docs/runtime.md
// shows: a Widget custom resource whose reconciler sets a finalizer, creates an owned ConfigMap
// holding spec.data, and reports a Ready condition (False with the error while a write fails).
import {
  type Client,
  type Condition,
  createOrUpdate,
  ensureFinalizer,
  hasFinalizer,
  isBeingDeleted,
  type KubeObjectLike,
  type Reconciler,
  removeFinalizer,
  setCondition,
  updateStatus,
} from "../../../src/runtime/index.js";

export const WIDGET = { apiVersion: "faults.tsop.dev/v1", kind: "Widget" } as const;
export const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
export const FINALIZER = "faults.tsop.dev/cleanup";

export interface Widget extends KubeObjectLike {
  metadata: {
    name: string;
    namespace: string;
    generation?: number;
    resourceVersion?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  /** `data` is the operator's input; `extra` a field only users write (the operator never reads it). */
  spec: { data?: Record<string, string>; extra?: string };
  status?: { conditions?: Condition[] };
}

export interface ConfigMap extends KubeObjectLike {
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

/** The owned ConfigMap's name for a Widget. */
export const configMapName = (widget: string) => `${widget}-data`;

const open = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

export const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.faults.tsop.dev" },
  spec: {
    group: "faults.tsop.dev",
    names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  data: { type: "object", additionalProperties: { type: "string" } },
                  extra: { type: "string" },
                },
              },
              status: open,
            },
          },
        },
      },
    ],
  },
};

/** Reconciles a Widget into its ConfigMap; a failed write shows as Ready=False on the Widget. */
export const widgetReconciler: Reconciler = {
  async reconcile(req, { client }) {
    const widget = await client.get<Widget>(WIDGET, req);
    if (!widget) return;
    if (isBeingDeleted(widget)) {
      if (hasFinalizer(widget, FINALIZER)) await removeFinalizer(client, widget, FINALIZER);
      return;
    }
    await ensureFinalizer(client, widget, FINALIZER);
    try {
      await createOrUpdate<ConfigMap>(
        client,
        { ...CONFIGMAP, metadata: { name: configMapName(req.name), namespace: req.namespace } },
        (cm) => {
          cm.data = { ...widget.spec.data };
        },
        { owner: widget },
      );
    } catch (error) {
      await report(client, widget, "False", "ConfigMapFailed", (error as Error).message);
      throw error;
    }
    await report(client, widget, "True", "Synced", "the ConfigMap holds spec.data");
  },
};

async function report(
  client: Client,
  widget: Widget,
  status: "True" | "False",
  reason: string,
  message: string,
) {
  const changed = setCondition(widget, { type: "Ready", status, reason, message: message.slice(0, 300) });
  if (!changed) return;
  const written = updateStatus(client, widget);
  // A status that cannot be written either (the API server is away) must not hide the first error.
  if (status === "False") await written.catch(() => undefined);
  else await written;
}
