// The Widget CRD (example.com/v1), which the CRD-lifecycle tests install and delete while a manager
// runs, and helpers to read what the manager's probes and metrics say meanwhile.
export const WIDGET = { apiVersion: "example.com/v1", kind: "Widget" } as const;
export const WIDGET_CRD_NAME = "widgets.example.com";

export function widgetCrd() {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: WIDGET_CRD_NAME },
    spec: {
      group: "example.com",
      names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          },
        },
      ],
    },
  };
}

export async function readyz(url: string | undefined): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/readyz?verbose`);
  return { status: res.status, body: await res.text() };
}
