// Listing where a kind the cluster does not serve means "none": a command that sweeps up what it may
// have created (cleanup, rollback, preflight reads) lists kinds whose CRDs may be absent.
import type { KubeClient } from "./client.js";
import { NoKindMatchError } from "./errors.js";

/** The objects of a kind in a namespace ("" for all), or none when the cluster does not serve the kind. */
export async function listIn(
  client: KubeClient,
  apiVersion: string,
  kind: string,
  namespace: string,
  labelSelector?: string,
) {
  try {
    return (await client.list(apiVersion, kind, { namespace, labelSelector })).items;
  } catch (error) {
    if (error instanceof NoKindMatchError) return [];
    throw error;
  }
}
