// The operator of the trust-writes tests, written as docs/runtime.md shows: get the CR,
// ensureFinalizer, createOrUpdate of an owned ConfigMap, updateStatus; removeFinalizer on delete.
// Its kind, Widget, has a spec.extra the operator never reads (what `kubectl apply` must be able to
// prune again). Used on both tiers.
import type { Client, KubeObjectLike } from "../../../src/runtime/client/client.js";
import {
  createOrUpdate,
  ensureFinalizer,
  isBeingDeleted,
  removeFinalizer,
  updateStatus,
} from "../../../src/runtime/controllerutil/helpers.js";
import type { ReconcileContext, Request } from "../../../src/runtime/controller/controller.js";
import type { Manager } from "../../../src/runtime/manager/manager.js";
import { waitFor } from "./wait.js";

export const WIDGET = { apiVersion: "trust.example.com/v1", kind: "Widget" } as const;
export const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
export const WIDGET_FINALIZER = "trust.example.com/cleanup";

export type Widget = KubeObjectLike & {
  metadata: {
    name: string;
    namespace?: string;
    generation?: number;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    finalizers?: string[];
    managedFields?: unknown[];
  };
  spec?: { size?: number; extra?: string };
  status?: { observedGeneration?: number };
};

export const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.trust.example.com" },
  spec: {
    group: "trust.example.com",
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
                properties: { size: { type: "integer" }, extra: { type: "string" } },
              },
              status: { type: "object", properties: { observedGeneration: { type: "integer" } } },
            },
          },
        },
      },
    ],
  },
};

/** Installs the Widget CRD and waits until it is served. */
export async function installWidgetCrd(client: Client): Promise<void> {
  await client.create(WIDGET_CRD);
  await waitFor("the Widget CRD to be served", async () => {
    const list = await client.rest
      .request<{ resources?: unknown[] }>("GET", "/apis/trust.example.com/v1")
      .catch(() => undefined);
    return (list?.resources?.length ?? 0) > 0;
  });
}

/** The reconciler: finalizer, an owned ConfigMap with the size, status.observedGeneration. */
export async function reconcileWidget(req: Request, { client }: ReconcileContext): Promise<void> {
  const widget = await client.get<Widget>(WIDGET, req);
  if (!widget) return;
  if (isBeingDeleted(widget)) {
    await removeFinalizer(client, widget, WIDGET_FINALIZER);
    return;
  }
  await ensureFinalizer(client, widget, WIDGET_FINALIZER);
  await createOrUpdate(
    client,
    { ...CM, metadata: { name: `${req.name}-config`, namespace: req.namespace } },
    (cm: KubeObjectLike & { data?: Record<string, string> }) => {
      cm.data = { ...cm.data, size: String(widget.spec?.size ?? 1) };
    },
    { owner: widget },
  );
  widget.status = { observedGeneration: widget.metadata.generation };
  await updateStatus(client, widget);
}

/** Wires the Widget controller on a manager (owns its ConfigMaps). */
export async function widgetController(manager: Manager): Promise<void> {
  await manager.controller(WIDGET).owns(CM).complete(reconcileWidget);
}

/** Waits until the operator has reconciled the widget's current generation. */
export function reconciled(client: Client, key: { namespace: string; name: string }): Promise<Widget> {
  return waitFor(`Widget ${key.namespace}/${key.name} reconciled`, async () => {
    const w = await client.get<Widget>(WIDGET, key);
    return w?.status?.observedGeneration === w?.metadata.generation &&
      w?.metadata.finalizers?.includes(WIDGET_FINALIZER)
      ? w
      : undefined;
  });
}
