// Which OLM a run command talks to: `--olm v0|v1` when given; else OLM v1 when only its APIs
// (ClusterExtension, ClusterCatalog) are served and OLM v0's CatalogSource is not, otherwise v0
// (whose own check then names a missing OLM). requireOlmV1 is the v1 path's first check.
import { TsopError } from "../../../common/errors.js";
import type { KubeClient } from "../../../kube/client.js";
import { type ClusterOptions, connect } from "../../../kube/connect.js";
import { NoKindMatchError } from "../../../kube/errors.js";
import { OLM_V1 } from "./plan.js";

export type OlmFlavor = "v0" | "v1";

export async function serves(client: KubeClient, apiVersion: string, kind: string): Promise<boolean> {
  try {
    await client.resource(apiVersion, kind);
    return true;
  } catch (error) {
    if (error instanceof NoKindMatchError) return false;
    throw error;
  }
}

/** `--olm` when given (or a dry run: no cluster to ask, v0); else what the cluster serves. */
export async function chooseOlm(
  options: ClusterOptions & { olm?: OlmFlavor; dryRun?: boolean },
): Promise<OlmFlavor> {
  if (options.olm) return options.olm;
  if (options.dryRun) return "v0";
  const conn = await connect(options);
  try {
    const v0 = await serves(conn.client, "operators.coreos.com/v1alpha1", "CatalogSource");
    if (v0) return "v0";
    const v1 =
      (await serves(conn.client, OLM_V1, "ClusterExtension")) &&
      (await serves(conn.client, OLM_V1, "ClusterCatalog"));
    if (v1)
      options.reporter.info(
        "OLM v1 (ClusterExtension, ClusterCatalog) is served and OLM v0 is not: using OLM v1",
      );
    return v1 ? "v1" : "v0";
  } finally {
    if (conn.owned) conn.client.close();
  }
}

/** Refuses to go on when the cluster does not serve OLM v1's ClusterExtension and ClusterCatalog APIs. */
export async function requireOlmV1(client: KubeClient): Promise<void> {
  const missing: string[] = [];
  for (const kind of ["ClusterCatalog", "ClusterExtension"])
    if (!(await serves(client, OLM_V1, kind))) missing.push(kind);
  if (missing.length)
    throw new TsopError(
      `OLM v1 is not installed in this cluster: ${missing.join(" and ")} (${OLM_V1}) not served`,
      {
        hint: "install OLM v1 (operator-controller and catalogd, its release's install manifest), or use --olm v0",
      },
    );
}
