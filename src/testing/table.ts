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

export function toTable(
  def: ResourceDef,
  items: KObj[],
  resourceVersion: string,
  continueToken?: string,
): KObj {
  const extra = (def.printerColumns ?? []).filter((c) => c.name !== "Age");
  const columnDefinitions: KObj[] = [
    {
      name: "Name",
      type: "string",
      format: "name",
      description: "Name must be unique within a namespace.",
      priority: 0,
    },
    ...extra.map((c) => ({
      name: c.name,
      type: c.type ?? "string",
      format: c.format ?? "",
      description: c.description ?? "",
      priority: c.priority ?? 0,
    })),
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
    cells: [
      o.metadata?.name,
      ...extra.map((c) => {
        const v = jsonPathValue(o, String(c.jsonPath));
        if (v === undefined || v === null) return null;
        if (c.type === "date") return age(String(v));
        return typeof v === "object" ? JSON.stringify(v) : v;
      }),
      age(o.metadata?.creationTimestamp),
    ],
    object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata },
  }));
  const metadata: KObj = { resourceVersion };
  if (continueToken) metadata.continue = continueToken;
  return { kind: "Table", apiVersion: "meta.k8s.io/v1", metadata, columnDefinitions, rows };
}
