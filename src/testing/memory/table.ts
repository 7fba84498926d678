// meta.k8s.io/v1 Table responses, which kubectl asks for (Accept: ...;as=Table) when printing.
import type { IncomingMessage } from "node:http";
import type { KObj, ResourceDef } from "./types.js";

export function wantsTable(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? "";
  return /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

function age(timestamp: string | undefined): string {
  if (!timestamp) return "<unknown>";
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(timestamp)) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  return `${Math.floor(m / 60)}h`;
}

/** Minimal JSONPath (".spec.size", ".status.conditions[0].type") used by printer columns. */
function jsonPathValue(obj: KObj, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".").filter(Boolean)) {
    const m = /^([^[\]]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    cur = cur && typeof cur === "object" ? (cur as KObj)[m[1]!] : undefined;
    for (const idx of m[2]!.match(/\d+/g) ?? []) cur = Array.isArray(cur) ? cur[Number(idx)] : undefined;
  }
  return cur;
}

interface Column {
  name: string;
  cell: (o: KObj) => unknown;
}

const count = (v: unknown) => (v && typeof v === "object" ? Object.keys(v).length : 0);
const statuses = (o: KObj): KObj[] => o.status?.containerStatuses ?? [];

/** The columns kubectl shows for common built-in kinds (a subset of the apiserver's printers). */
const builtinColumns: Record<string, Column[]> = {
  "/namespaces": [{ name: "Status", cell: (o) => o.status?.phase ?? "" }],
  "/pods": [
    {
      name: "Ready",
      cell: (o) => `${statuses(o).filter((s) => s.ready).length}/${(o.spec?.containers ?? []).length}`,
    },
    {
      name: "Status",
      cell: (o) => {
        const waiting = statuses(o).find((s) => s.state?.waiting)?.state?.waiting?.reason;
        return o.metadata?.deletionTimestamp ? "Terminating" : (waiting ?? o.status?.phase ?? "Pending");
      },
    },
    { name: "Restarts", cell: (o) => statuses(o).reduce((n, s) => n + Number(s.restartCount ?? 0), 0) },
  ],
  "/services": [
    { name: "Type", cell: (o) => o.spec?.type ?? "ClusterIP" },
    { name: "Cluster-IP", cell: (o) => o.spec?.clusterIP ?? "<none>" },
    { name: "External-IP", cell: () => "<none>" },
    {
      name: "Port(s)",
      cell: (o) =>
        ((o.spec?.ports as KObj[] | undefined) ?? [])
          .map((p) => `${p.port}/${p.protocol ?? "TCP"}`)
          .join(",") || "<none>",
    },
  ],
  "/configmaps": [{ name: "Data", cell: (o) => count(o.data) + count(o.binaryData) }],
  "/secrets": [
    { name: "Type", cell: (o) => o.type ?? "Opaque" },
    { name: "Data", cell: (o) => count(o.data) },
  ],
  "apps/deployments": [
    { name: "Ready", cell: (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}` },
    { name: "Up-to-date", cell: (o) => o.status?.updatedReplicas ?? 0 },
    { name: "Available", cell: (o) => o.status?.availableReplicas ?? 0 },
  ],
  "apps/replicasets": [
    { name: "Desired", cell: (o) => o.spec?.replicas ?? 0 },
    { name: "Current", cell: (o) => o.status?.replicas ?? 0 },
    { name: "Ready", cell: (o) => o.status?.readyReplicas ?? 0 },
  ],
  "batch/jobs": [
    { name: "Completions", cell: (o) => `${o.status?.succeeded ?? 0}/${o.spec?.completions ?? 1}` },
  ],
};

export function toTable(
  def: ResourceDef,
  items: KObj[],
  resourceVersion: string,
  continueToken?: string,
): KObj {
  const printer = (def.printerColumns ?? []).filter((c) => c.name !== "Age");
  const crdColumns: Column[] = printer.map((c) => ({
    name: String(c.name),
    cell: (o: KObj) => {
      const v = jsonPathValue(o, String(c.jsonPath));
      if (v === undefined || v === null) return null;
      if (c.type === "date") return age(String(v));
      return typeof v === "object" ? JSON.stringify(v) : v;
    },
  }));
  const extra = def.builtin ? (builtinColumns[def.storageKey] ?? []) : crdColumns;
  const described = new Map(printer.map((c) => [String(c.name), c]));
  const columnDefinitions: KObj[] = [
    {
      name: "Name",
      type: "string",
      format: "name",
      description: "Name must be unique within a namespace.",
      priority: 0,
    },
    ...extra.map((c) => {
      const d = described.get(c.name);
      return {
        name: c.name,
        type: d?.type ?? "string",
        format: d?.format ?? "",
        description: d?.description ?? "",
        priority: d?.priority ?? 0,
      };
    }),
    {
      name: "Age",
      type: "date",
      format: "",
      description:
        "CreationTimestamp is a timestamp representing the server time when this object was created.",
      priority: 0,
    },
  ];
  const rows = items.map((o) => ({
    cells: [o.metadata?.name, ...extra.map((c) => c.cell(o)), age(o.metadata?.creationTimestamp)],
    object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata },
  }));
  const metadata: KObj = { resourceVersion };
  if (continueToken) metadata.continue = continueToken;
  return { kind: "Table", apiVersion: "meta.k8s.io/v1", metadata, columnDefinitions, rows };
}
