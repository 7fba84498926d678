// The OLM v1 tsop ships (olm-releases/olmv1/, made by scripts/olm-v1-release/regenerate.mjs):
// catalogd v1.11.0 and operator-controller v1.2.0, their CRDs, the other objects, and the
// cert-manager Certificates whose Secrets tsop issues itself (certificates.ts). Read offline; the
// version is the two pins, which the Deployments' images name too.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { errorFrom, InvalidInputError } from "../../common/errors.js";
import { readFile } from "../../common/fs.js";
import { OLM_V1_CATALOGD_VERSION, OLM_V1_OPERATOR_CONTROLLER_VERSION } from "../../common/pins.js";
import { isCrd, type KubeObject, type ObjectRef, refOf } from "../../kube/objects.js";
import type { OlmRelease } from "../release.js";
import { parseDocs, SHIPPED_RELEASES_DIR } from "../release.js";
import { v1Messages } from "./messages.js";

export const OLM_V1_DIR = join(SHIPPED_RELEASES_DIR, "olmv1");
export const OLM_V1_GROUP = "olm.operatorframework.io";
export const OLM_V1_DEPLOYMENTS = {
  catalogd: "catalogd-controller-manager",
  operatorController: "operator-controller-controller-manager",
} as const;

export interface OlmV1Components {
  catalogd: string;
  operatorController: string;
}

export const SHIPPED_V1: OlmV1Components = {
  catalogd: OLM_V1_CATALOGD_VERSION,
  operatorController: OLM_V1_OPERATOR_CONTROLLER_VERSION,
};

/** "catalogd v1.11.0, operator-controller v1.2.0": how messages and `status` name a v1 install. */
export function describeV1(components: OlmV1Components): string {
  return `catalogd ${components.catalogd}, operator-controller ${components.operatorController}`;
}

export interface OlmV1Release extends OlmRelease {
  components: OlmV1Components;
  /** cert-manager Certificates (cert-manager.io/v1) naming the Secrets tsop issues. */
  certificates: KubeObject[];
}

const FILES = ["crds.yaml", "olmv1.yaml", "certificates.yaml"] as const;

export async function loadV1Release(dir = OLM_V1_DIR): Promise<OlmV1Release> {
  const texts: Record<string, string> = {};
  for (const file of FILES) {
    const path = join(dir, file);
    if (!existsSync(path)) throw errorFrom(v1Messages.assetMissing(path), InvalidInputError);
    texts[file] = await readFile(path, "utf8");
  }
  const crds = parseDocs(texts["crds.yaml"]!, join(dir, "crds.yaml"));
  const resources = parseDocs(texts["olmv1.yaml"]!, join(dir, "olmv1.yaml"));
  const certificates = parseDocs(texts["certificates.yaml"]!, join(dir, "certificates.yaml"));
  const bad = [
    ...crds.filter((o) => !isCrd(o)).map((o) => `crds.yaml holds a ${o.kind}`),
    ...resources.filter(isCrd).map((o) => `olmv1.yaml holds the CRD ${o.metadata.name}`),
    ...certificates.filter((o) => o.kind !== "Certificate").map((o) => `certificates.yaml holds a ${o.kind}`),
  ];
  if (bad.length > 0) throw errorFrom(v1Messages.assetBroken(dir, bad.join("; ")), InvalidInputError);
  return {
    version: `v1 (${describeV1(SHIPPED_V1)})`,
    components: SHIPPED_V1,
    crds,
    resources,
    certificates,
    origin: "shipped",
    location: dir,
  };
}

/** The Secret each Certificate names (spec.secretName, in the Certificate's namespace). */
export function certificateSecretRefs(release: OlmV1Release): ObjectRef[] {
  return release.certificates.map((c) => ({
    apiVersion: "v1",
    kind: "Secret",
    namespace: c.metadata.namespace,
    name: String(c.spec?.secretName ?? ""),
  }));
}

/** Every object `olm install --v1` creates: the release's, the issued Secrets and the CA's. */
export function installedRefs(release: OlmV1Release): ObjectRef[] {
  return [
    ...release.crds.map(refOf),
    ...release.resources.map(refOf),
    ...certificateSecretRefs(release),
    caSecretRef(release),
  ];
}

/** Where tsop keeps the CA that replaces cert-manager's olmv1-ca ClusterIssuer. */
export function caSecretRef(release: OlmV1Release): ObjectRef {
  const namespace = release.resources.find((o) => o.kind === "Namespace")?.metadata.name ?? "olmv1-system";
  return { apiVersion: "v1", kind: "Secret", namespace, name: "olmv1-ca" };
}
