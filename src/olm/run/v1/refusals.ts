// What OLM v1 cannot install, refused before anything is created: the errors of the `olm-v1`
// validate suite (V1-01 AllNamespaces unsupported — SingleNamespace/OwnNamespace are alpha in v1;
// V1-03 dependencies; V1-04 owned APIServices; V1-02 and V1-07 webhook rules and deployment names),
// and webhooks on a cluster without cert-manager (OLM v1's certificate provider). Warnings of the
// suite are passed on, not refused.
import { InvalidInputError } from "../../../common/errors.js";
import type { Finding, LoadedBundle } from "../../../bundle/load/types.js";
import { OLM_V1_CHECKS } from "../../../bundle/validate/checks/olm-v1.js";
import { formatFinding } from "../../../bundle/validate/index.js";

export const CERT_MANAGER_API = { apiVersion: "cert-manager.io/v1", kind: "Certificate" };

export interface V1Findings {
  errors: Finding[];
  warnings: Finding[];
}

/** The olm-v1 suite's findings, plus a webhook finding when the cluster has no cert-manager. */
export function v1Findings(bundle: LoadedBundle, cluster: { certManager: boolean }): V1Findings {
  const findings = OLM_V1_CHECKS.flatMap((c) => c.run(bundle, {}));
  const webhooks = webhookDefinitions(bundle);
  if (webhooks > 0 && !cluster.certManager)
    findings.push({
      id: "V1-CM",
      level: "error",
      message: `the CSV defines ${webhooks} webhook(s); OLM v1 serves webhooks only with a certificate provider, and the cluster does not serve cert-manager's ${CERT_MANAGER_API.apiVersion} ${CERT_MANAGER_API.kind}`,
      path: "spec.webhookdefinitions",
    });
  return {
    errors: findings.filter((f) => f.level === "error"),
    warnings: findings.filter((f) => f.level === "warning"),
  };
}

function webhookDefinitions(bundle: LoadedBundle): number {
  const spec = bundle.csv?.object.spec as { webhookdefinitions?: unknown[] } | undefined;
  return spec?.webhookdefinitions?.length ?? 0;
}

/** Throws when OLM v1 cannot install the bundle, naming each finding and what to do. */
export function refuseForV1(image: string, findings: V1Findings): void {
  if (findings.errors.length === 0) return;
  const ids = new Set(findings.errors.map((f) => f.id));
  const hints = [
    ids.has("V1-01")
      ? "SingleNamespace/OwnNamespace installs are alpha in OLM v1 (SingleOwnNamespaceInstallSupport gate, off in the standard release): add AllNamespaces to the CSV's installModes, or use --olm v0"
      : "",
    ids.has("V1-03") ? "OLM v1 resolves no dependencies: drop them from the bundle, or use --olm v0" : "",
    ids.has("V1-CM") ? "install cert-manager in the cluster, or use --olm v0" : "",
  ].filter(Boolean);
  throw new InvalidInputError(
    [
      `OLM v1 cannot install bundle ${image} (nothing was created):`,
      ...findings.errors.map((f) => `  ${formatFinding(f)}`),
    ].join("\n"),
    {
      hint: hints.length
        ? hints.join("; ")
        : "fix the bundle (tsop bundle validate --select-optional olm-v1), or use --olm v0",
    },
  );
}
