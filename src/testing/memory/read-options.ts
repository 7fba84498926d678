// How the API server reads: the parts of ListOptions that decide where a list or watch is served
// from and in which shape. resourceVersion="0" lists come from the watch cache, which ignores
// limit (kube-apiserver v1.34's cacher: computeListLimit); WatchList streams (sendInitialEvents)
// need resourceVersionMatch=NotOlderThan and the WatchList feature gate (422 otherwise, as
// apimachinery's ValidateListOptions); and PartialObjectMetadata answers for clients that ask
// for metadata only (Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1).
import type { IncomingMessage } from "node:http";
import { fieldForbidden, invalid, notSupported } from "./status.js";
import type { KObj } from "./types.js";

const LIST_OPTIONS = { kind: "ListOptions", group: "meta.k8s.io" };

/** The page size a list honours: none for resourceVersion "0" (served whole from the watch cache). */
export function effectiveLimit(query: URLSearchParams): number | undefined {
  const limit = query.get("limit");
  if (!limit || query.get("resourceVersion") === "0") return undefined;
  return Number(limit);
}

/** 422 for list/watch options the real server refuses (apimachinery's ValidateListOptions). */
export function validateReadOptions(query: URLSearchParams, watch: boolean, watchListEnabled: boolean): void {
  const sendInitialEvents = query.get("sendInitialEvents");
  const match = query.get("resourceVersionMatch") ?? "";
  const errors = [];
  if (!watch) {
    if (sendInitialEvents !== null)
      errors.push(fieldForbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  } else {
    if (sendInitialEvents !== null) {
      if (match !== "NotOlderThan")
        errors.push(
          fieldForbidden(
            "resourceVersionMatch",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
          ),
        );
      if (!watchListEnabled)
        errors.push(
          fieldForbidden(
            "sendInitialEvents",
            "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
          ),
        );
    }
    if (match !== "") {
      if (sendInitialEvents === null)
        errors.push(
          fieldForbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
          ),
        );
      if (match !== "NotOlderThan")
        errors.push(notSupported("resourceVersionMatch", match, ["NotOlderThan"]));
    }
  }
  if (errors.length > 0) throw invalid(LIST_OPTIONS, "", errors);
}

/**
 * Whether the client asked for PartialObjectMetadata (`list`: PartialObjectMetadataList). The first
 * media type of Accept that the server can serve wins, as in the API server's negotiation.
 */
export function wantsPartialMetadata(req: IncomingMessage, list: boolean): boolean {
  const wanted = list ? "PartialObjectMetadataList" : "PartialObjectMetadata";
  for (const entry of (req.headers.accept ?? "").split(",")) {
    const [type, ...params] = entry.split(";").map((p) => p.trim());
    if (type !== "application/json" && type !== "*/*") continue;
    const as = params.find((p) => p.startsWith("as="))?.slice(3);
    if (as === undefined) return false;
    if (as === wanted && params.includes("g=meta.k8s.io") && params.includes("v=v1")) return true;
  }
  return false;
}

export function partialObjectMetadata(obj: KObj): KObj {
  return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: obj.metadata };
}

export function partialObjectMetadataList(list: KObj): KObj {
  return {
    apiVersion: "meta.k8s.io/v1",
    kind: "PartialObjectMetadataList",
    metadata: list.metadata,
    items: (list.items as KObj[]).map(partialObjectMetadata),
  };
}
