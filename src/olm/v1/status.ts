// `tsop olm status --v1`: finds OLM v1 (detect.ts) and reports each object of the shipped release
// plus the certificate Secrets tsop issued, with v0's health rules (health.ts) and verdict.
import { connect } from "../../kube/connect.js";
import type { KubeObject } from "../../kube/objects.js";
import { type OlmClusterOptions, type OlmStatus, statusOf, withDeadline } from "../status.js";
import { detectOlmV1 } from "./detect.js";
import {
  caSecretRef,
  certificateSecretRefs,
  describeV1,
  loadV1Release,
  type OlmV1Release,
} from "./release.js";

export interface StatusV1Options extends OlmClusterOptions {
  releaseDir?: string;
}

export async function olmStatusV1(options: StatusV1Options): Promise<OlmStatus> {
  return withDeadline(statusOnce(options), options.timeoutMs, "checking OLM v1's status");
}

async function statusOnce(options: StatusV1Options): Promise<OlmStatus> {
  const release = await loadV1Release(options.releaseDir);
  const { client } = await connect(options);
  try {
    const existing = await detectOlmV1(client);
    if (existing.found.length === 0) return { verdict: "absent", rows: [] };
    const status = await statusOf(client, { found: existing.found }, statusRelease(release));
    const { catalogd, operatorController } = existing.components;
    status.version = `v1 (${describeV1({
      catalogd: catalogd ?? "unknown",
      operatorController: operatorController ?? "unknown",
    })})`;
    return status;
  } finally {
    client.close();
  }
}

/** The release as status reads it: its objects and the Secrets tsop issues for it. */
export function statusRelease(release: OlmV1Release): OlmV1Release {
  const secrets: KubeObject[] = [caSecretRef(release), ...certificateSecretRefs(release)].map((ref) => ({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: { name: ref.name, namespace: ref.namespace },
  }));
  return { ...release, resources: [...release.resources, ...secrets] };
}
