// Optional suite "deprecated-apis", as operator-framework/api's alpha-deprecated-APIs validator
// checks a bundle (DEP-01…05): objects and RBAC using APIs removed in Kubernetes 1.22, 1.25 and
// 1.26, judged against --k8s-version or the CSV's minKubeVersion.
import semver from "semver";
import { asArray, asRecords, isRecord, kindOf, nameOf, str } from "../../../manifests/index.js";
import type { Finding, LoadedBundle } from "../../load/types.js";
import type { Check, CheckContext } from "../check.js";
import { allRules, csvChecks, csvView, finding, kubeVersion } from "../util.js";

/** APIs removed in a Kubernetes release: "group/version Kind". */
export const REMOVED: Record<string, string[]> = {
  "1.22": [
    "apiextensions.k8s.io/v1beta1 CustomResourceDefinition",
    "scheduling.k8s.io/v1beta1 PriorityClass",
    "rbac.authorization.k8s.io/v1beta1 Role",
    "rbac.authorization.k8s.io/v1beta1 ClusterRole",
    "rbac.authorization.k8s.io/v1beta1 RoleBinding",
    "rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding",
    "apiregistration.k8s.io/v1beta1 APIService",
    "authentication.k8s.io/v1beta1 TokenReview",
    "authorization.k8s.io/v1beta1 LocalSubjectAccessReview",
    "authorization.k8s.io/v1beta1 SelfSubjectAccessReview",
    "authorization.k8s.io/v1beta1 SubjectAccessReview",
    "admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration",
    "admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration",
    "coordination.k8s.io/v1beta1 Lease",
    "extensions/v1beta1 Ingress",
    "networking.k8s.io/v1beta1 Ingress",
    "networking.k8s.io/v1beta1 IngressClass",
    "storage.k8s.io/v1beta1 CSIDriver",
    "storage.k8s.io/v1beta1 CSINode",
    "storage.k8s.io/v1beta1 StorageClass",
    "storage.k8s.io/v1beta1 VolumeAttachment",
    "certificates.k8s.io/v1beta1 CertificateSigningRequest",
  ],
  "1.25": [
    "batch/v1beta1 CronJob",
    "discovery.k8s.io/v1beta1 EndpointSlice",
    "events.k8s.io/v1beta1 Event",
    "autoscaling/v2beta1 HorizontalPodAutoscaler",
    "policy/v1beta1 PodDisruptionBudget",
    "policy/v1beta1 PodSecurityPolicy",
    "node.k8s.io/v1beta1 RuntimeClass",
  ],
  "1.26": ["autoscaling/v2beta2 HorizontalPodAutoscaler"],
};
const RBAC_125 = [
  "batch/cronjobs",
  "discovery.k8s.io/endpointslices",
  "events.k8s.io/events",
  "autoscaling/horizontalpodautoscalers",
  "policy/poddisruptionbudgets",
  "policy/podsecuritypolicies",
  "node.k8s.io/runtimeclasses",
];

/** The Kubernetes version deprecated-API findings are judged against (k8s-version, else minKubeVersion). */
function targetKube(b: LoadedBundle, ctx: CheckContext): string | undefined {
  if (ctx.k8sVersion) return kubeVersion(ctx.k8sVersion);
  const v = csvView(b);
  const min = v ? str(v.spec.minKubeVersion) : "";
  return min ? kubeVersion(min) : undefined;
}

function removedApiCheck(id: string, release: string) {
  return {
    id,
    suite: "deprecated-apis",
    level: "warning" as const,
    description: `APIs removed in Kubernetes ${release} (an error when --k8s-version or minKubeVersion is ${release} or later)`,
    run: (b: LoadedBundle, ctx: CheckContext) => {
      const target = targetKube(b, ctx);
      const level = target && semver.gte(target, `${release}.0`) ? ("error" as const) : ("warning" as const);
      const removed = new Set(REMOVED[release]);
      const out: Finding[] = [];
      for (const m of b.manifests) {
        const gvk = `${str(m.object.apiVersion)} ${kindOf(m.object)}`;
        if (removed.has(gvk)) {
          out.push(
            finding(
              id,
              level,
              `${gvk} is removed in Kubernetes ${release}; migrate ${nameOf(m.object)} to a served API version`,
              m.file,
              "apiVersion",
            ),
          );
        }
      }
      const v = csvView(b);
      if (v && release === "1.25") {
        const crds = isRecord(v.spec.customresourcedefinitions) ? v.spec.customresourcedefinitions : {};
        for (const key of ["owned", "required"]) {
          asRecords(crds[key]).forEach((c, i) => {
            asRecords(c.resources).forEach((r, j) => {
              const hit = [...removed].find(
                (x) => x.endsWith(` ${str(r.kind)}`) && x.split(" ")[0]?.endsWith(`/${str(r.version)}`),
              );
              if (hit)
                out.push(
                  finding(
                    id,
                    level,
                    `${hit} is removed in Kubernetes ${release}`,
                    v.file.file,
                    `spec.customresourcedefinitions.${key}[${i}].resources[${j}]`,
                  ),
                );
            });
          });
        }
      }
      return out;
    },
  };
}

export const DEPRECATED_API_CHECKS: Check[] = [
  removedApiCheck("DEP-01", "1.22"),
  removedApiCheck("DEP-02", "1.25"),
  {
    suite: "deprecated-apis",
    ...csvChecks("DEP-03", "warning", "RBAC does not ask for APIs removed in Kubernetes 1.25", (v) =>
      allRules(v).flatMap(({ rule, path }) =>
        asArray(rule.apiGroups).flatMap((g) =>
          asArray(rule.resources)
            .filter((r) => RBAC_125.includes(`${String(g)}/${String(r)}`))
            .map((r) =>
              finding(
                "DEP-03",
                "warning",
                `RBAC asks for ${String(g)}/${String(r)}, removed in Kubernetes 1.25; drop the rule or move to the API that replaced it`,
                v.file.file,
                path,
              ),
            ),
        ),
      ),
    ),
  },
  removedApiCheck("DEP-04", "1.26"),
  {
    id: "DEP-05",
    suite: "deprecated-apis",
    level: "error",
    description: "--k8s-version and minKubeVersion can be parsed",
    run: (b, ctx) => {
      const out: Finding[] = [];
      if (ctx.k8sVersion && !kubeVersion(ctx.k8sVersion))
        out.push(
          finding(
            "DEP-05",
            "error",
            `--k8s-version "${ctx.k8sVersion}" is not a Kubernetes version; write e.g. 1.29 or 1.29.0`,
          ),
        );
      const v = csvView(b);
      const min = v ? str(v.spec.minKubeVersion) : "";
      if (v && min && !kubeVersion(min))
        out.push(
          finding(
            "DEP-05",
            "error",
            `spec.minKubeVersion "${min}" is not a version, so removed APIs cannot be judged against it; fix it or pass --k8s-version`,
            v.file.file,
            "spec.minKubeVersion",
          ),
        );
      return out;
    },
  },
];
