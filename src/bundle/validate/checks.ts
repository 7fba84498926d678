// The check table: every validation tsop runs, each with a stable id, its suite and level. The
// default suite mirrors operator-framework's default validators (format, content, CSV, CRD,
// bundle); the optional suites mirror operatorhub, good-practices, deprecated APIs and community,
// plus an OLM v1 compatibility suite (olm-v1.ts). Ids are stable: tests and users match on them.
import semver from "semver";
import {
  asArray,
  asRecords,
  isRecord,
  kindOf,
  nameOf,
  namespaceOf,
  podSpecOf,
  str,
} from "../../manifests/index.js";
import { CAPABILITY_LEVELS, INSTALL_MODES } from "../fields.js";
import { FEATURE_PREFIX, FEATURES } from "../features.js";
import { SUPPORTED_KINDS } from "../files.js";
import { ANNOTATION } from "../metadata.js";
import type { Check, CheckContext, Finding, LoadedBundle } from "./types.js";
import { imageReferenceProblem } from "../../images/reference.js";
import { csvView, finding, kubeVersion, nameProblem, strictSemver, validPullSpec } from "./util.js";
import { webhookDefinitionFindings } from "./webhooks.js";
import { OLM_V1_CHECKS } from "./olm-v1.js";

const MAX_COMPRESSED = 1 << 20;
const REQUIRED_ANNOTATIONS = [
  ANNOTATION.mediatype,
  ANNOTATION.manifests,
  ANNOTATION.metadata,
  ANNOTATION.package,
  ANNOTATION.channels,
];
export const STANDARD_CATEGORIES = [
  "AI/Machine Learning",
  "Application Runtime",
  "Big Data",
  "Cloud Provider",
  "Developer Tools",
  "Database",
  "Integration & Delivery",
  "Logging & Tracing",
  "Monitoring",
  "Modernization & Migration",
  "Networking",
  "OpenShift Optional",
  "Security",
  "Storage",
  "Streaming & Messaging",
  "Observability",
];

function csvChecks(
  id: string,
  level: Check["level"],
  description: string,
  run: (v: NonNullable<ReturnType<typeof csvView>>, b: LoadedBundle, ctx: CheckContext) => Finding[],
) {
  return {
    id,
    level,
    description,
    run: (b: LoadedBundle, ctx: CheckContext) => {
      const v = csvView(b);
      return v ? run(v, b, ctx) : [];
    },
  };
}

function examples(
  v: NonNullable<ReturnType<typeof csvView>>,
): { key: string; value: unknown; error?: string } | undefined {
  const a = v.annotations ?? {};
  const key =
    a["alm-examples"] !== undefined
      ? "alm-examples"
      : a["olm.examples"] !== undefined
        ? "olm.examples"
        : undefined;
  if (!key) return undefined;
  try {
    return { key, value: JSON.parse(str(a[key]) || "[]") };
  } catch (error) {
    return { key, value: undefined, error: (error as Error).message };
  }
}

function ownedApis(
  v: NonNullable<ReturnType<typeof csvView>>,
): Array<{ group: string; version: string; kind: string; name: string; index: number; source: string }> {
  const crds = isRecord(v.spec.customresourcedefinitions)
    ? asRecords(v.spec.customresourcedefinitions.owned)
    : [];
  const apis = isRecord(v.spec.apiservicedefinitions) ? asRecords(v.spec.apiservicedefinitions.owned) : [];
  return [
    ...crds.map((c, index) => ({
      group: str(c.name).split(".").slice(1).join("."),
      version: str(c.version),
      kind: str(c.kind),
      name: str(c.name),
      index,
      source: "spec.customresourcedefinitions.owned",
    })),
    ...apis.map((a, index) => ({
      group: str(a.group),
      version: str(a.version),
      kind: str(a.kind),
      name: str(a.name),
      index,
      source: "spec.apiservicedefinitions.owned",
    })),
  ];
}

function crdInfo(object: Record<string, unknown>) {
  const spec = isRecord(object.spec) ? object.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  return {
    spec,
    group: str(spec.group),
    kind: str(names.kind),
    plural: str(names.plural),
    versions: asRecords(spec.versions),
  };
}

function allRules(v: NonNullable<ReturnType<typeof csvView>>) {
  const install = isRecord(v.spec.install) && isRecord(v.spec.install.spec) ? v.spec.install.spec : {};
  const out: Array<{ rule: Record<string, unknown>; path: string }> = [];
  for (const key of ["permissions", "clusterPermissions"]) {
    asRecords(install[key]).forEach((p, i) => {
      asRecords(p.rules).forEach((rule, j) => {
        out.push({ rule, path: `spec.install.spec.${key}[${i}].rules[${j}]` });
      });
    });
  }
  return out;
}

function deploymentsOf(v: NonNullable<ReturnType<typeof csvView>>) {
  const install = isRecord(v.spec.install) && isRecord(v.spec.install.spec) ? v.spec.install.spec : {};
  return asRecords(install.deployments);
}

/** APIs removed in a Kubernetes release: "group/version Kind". */
const REMOVED: Record<string, string[]> = {
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

/** Container images of the CSV's deployments and the containerImage annotation: [field path, image]. */
function csvImageSites(csv: Record<string, unknown>): Array<[string, string]> {
  const sites: Array<[string, string]> = [];
  const meta = isRecord(csv.metadata) ? csv.metadata : {};
  const annotation = isRecord(meta.annotations) ? meta.annotations.containerImage : undefined;
  if (typeof annotation === "string" && annotation !== "")
    sites.push(["metadata.annotations.containerImage", annotation]);
  const spec = isRecord(csv.spec) ? csv.spec : {};
  const install = isRecord(spec.install) && isRecord(spec.install.spec) ? spec.install.spec : {};
  asRecords(install.deployments).forEach((d, i) => {
    const pod =
      isRecord(d.spec) && isRecord(d.spec.template) && isRecord(d.spec.template.spec)
        ? d.spec.template.spec
        : {};
    for (const list of ["initContainers", "containers"]) {
      asRecords(pod[list]).forEach((c, j) => {
        if (typeof c.image === "string")
          sites.push([`spec.install.spec.deployments[${i}].spec.template.spec.${list}[${j}].image`, c.image]);
      });
    }
  });
  return sites;
}

export const CHECKS: Check[] = [
  // Bundle format (operator-registry).
  {
    id: "FMT-01",
    suite: "default",
    level: "error",
    description: "the bundle has a manifests/ directory",
    run: (b) =>
      b.hasManifestsDir
        ? []
        : [
            finding(
              "FMT-01",
              "error",
              "the bundle has no manifests/ directory; run `tsop bundle` to write one, or point at the directory that holds manifests/ and metadata/",
              "manifests/",
            ),
          ],
  },
  {
    id: "FMT-02",
    suite: "default",
    level: "error",
    description: "the bundle has a metadata/ directory",
    run: (b) =>
      b.hasMetadataDir
        ? []
        : [
            finding(
              "FMT-02",
              "error",
              "the bundle has no metadata/ directory; run `tsop bundle` to write metadata/annotations.yaml",
              "metadata/",
            ),
          ],
  },
  {
    id: "FMT-03",
    suite: "default",
    level: "error",
    description: "manifests/ holds YAML files",
    run: (b) =>
      b.hasManifestsDir && b.emptyManifests
        ? [
            finding(
              "FMT-03",
              "error",
              "manifests/ holds no YAML file; the ClusterServiceVersion and CRDs belong there (run `tsop bundle`)",
              "manifests/",
            ),
          ]
        : [],
  },
  {
    id: "FMT-04",
    suite: "default",
    level: "error",
    description: "metadata/annotations.yaml holds an annotations map",
    run: (b) =>
      b.hasMetadataDir && !b.annotations
        ? [
            finding(
              "FMT-04",
              "error",
              "metadata/annotations.yaml is missing or has no `annotations:` map; run `tsop bundle` to write it",
              "metadata/annotations.yaml",
            ),
          ]
        : [],
  },
  {
    id: "FMT-05",
    suite: "default",
    level: "error",
    description: "the required bundle annotations are present",
    run: (b) =>
      b.annotations
        ? REQUIRED_ANNOTATIONS.filter((k) => b.annotations?.[k] === undefined).map((k) =>
            finding(
              "FMT-05",
              "error",
              `the ${k} annotation is missing; add it (tsop bundle writes every required annotation)`,
              b.annotationsFile,
              `annotations.${k}`,
            ),
          )
        : [],
  },
  {
    id: "FMT-06",
    suite: "default",
    level: "error",
    description: "the media type annotation matches the manifests",
    run: (b) => {
      const value = b.annotations?.[ANNOTATION.mediatype];
      if (value === undefined || !b.hasManifestsDir || b.emptyManifests) return [];
      const detected = b.csv ? "registry+v1" : "plain";
      return value === detected
        ? []
        : [
            finding(
              "FMT-06",
              "error",
              `media type "${str(value)}" does not fit the content: manifests/ makes this a ${detected} bundle, so set it to "${detected}"`,
              b.annotationsFile,
              `annotations.${ANNOTATION.mediatype}`,
            ),
          ];
    },
  },
  {
    id: "FMT-07",
    suite: "default",
    level: "error",
    description: "channels (and the default channel, when present) are not empty",
    run: (b) => {
      const out: Finding[] = [];
      for (const key of [ANNOTATION.channels, ANNOTATION.defaultChannel]) {
        const value = b.annotations?.[key];
        if (value !== undefined && String(value ?? "").trim() === "") {
          out.push(
            finding(
              "FMT-07",
              "error",
              `the ${key} annotation is empty; ${key === ANNOTATION.channels ? "list at least one channel, e.g. alpha" : "name one of the channels or remove it"}`,
              b.annotationsFile,
              `annotations.${key}`,
            ),
          );
        }
      }
      return out;
    },
  },
  {
    id: "FMT-08",
    suite: "default",
    level: "error",
    description: "metadata/dependencies.yaml entries are well formed",
    run: (b) => {
      if (!b.dependenciesFile) return [];
      const deps = isRecord(b.dependencies) ? asArray(b.dependencies.dependencies) : [];
      const out: Finding[] = [];
      deps.forEach((d, i) => {
        const path = `dependencies[${i}]`;
        const at = (message: string) => {
          out.push(finding("FMT-08", "error", message, b.dependenciesFile, path));
        };
        if (!isRecord(d)) {
          at("is not a mapping; each dependency is {type, value}");
          return;
        }
        const value = isRecord(d.value) ? d.value : {};
        switch (d.type) {
          case "olm.gvk":
            if (!str(value.group)) at("olm.gvk dependency without a group; set value.group");
            if (!str(value.version)) at("olm.gvk dependency without a version; set value.version");
            if (!str(value.kind)) at("olm.gvk dependency without a kind; set value.kind");
            break;
          case "olm.package":
            if (!str(value.packageName))
              at("olm.package dependency without a packageName; set value.packageName");
            if (!str(value.version))
              at('olm.package dependency without a version range; set value.version, e.g. ">=1.0.0"');
            else if (semver.validRange(str(value.version)) === null)
              at(
                `olm.package version range "${str(value.version)}" is not a semver range; write e.g. ">=0.9.0 <1.0.0"`,
              );
            break;
          case "olm.label":
            if (!str(value.label)) at("olm.label dependency without a label; set value.label");
            break;
          case "olm.constraint":
            if (isRecord(value.cel) && !str(value.cel.rule))
              at("olm.constraint with a cel block but no rule; set value.cel.rule");
            break;
          default:
            at(
              `dependency type "${str(d.type)}" is unknown; use olm.gvk, olm.package, olm.label or olm.constraint`,
            );
        }
      });
      return out;
    },
  },
  {
    id: "FMT-09",
    suite: "default",
    level: "error",
    description:
      "manifests/metadata annotations point at the real directories; package set; default channel is a channel",
    run: (b) => {
      const a = b.annotations;
      if (!a) return [];
      const out: Finding[] = [];
      const at = (key: string, message: string) =>
        out.push(finding("FMT-09", "error", message, b.annotationsFile, `annotations.${key}`));
      if (
        a[ANNOTATION.manifests] !== undefined &&
        str(a[ANNOTATION.manifests]).replace(/\/$/, "") !== "manifests"
      ) {
        at(
          ANNOTATION.manifests,
          `is "${str(a[ANNOTATION.manifests])}", but bundle images carry their manifests in manifests/; set it to "manifests/"`,
        );
      }
      if (
        a[ANNOTATION.metadata] !== undefined &&
        str(a[ANNOTATION.metadata]).replace(/\/$/, "") !== "metadata"
      ) {
        at(
          ANNOTATION.metadata,
          `is "${str(a[ANNOTATION.metadata])}", but bundle images carry their metadata in metadata/; set it to "metadata/"`,
        );
      }
      if (a[ANNOTATION.package] !== undefined && !str(a[ANNOTATION.package]).trim()) {
        at(ANNOTATION.package, `the package annotation is empty; set it to the package name`);
      }
      const channels = str(a[ANNOTATION.channels])
        .split(",")
        .map((c) => c.trim());
      const def = str(a[ANNOTATION.defaultChannel]);
      if (def && a[ANNOTATION.channels] !== undefined && !channels.includes(def)) {
        at(
          ANNOTATION.defaultChannel,
          `default channel "${def}" is not one of the channels (${channels.join(", ")})`,
        );
      }
      return out;
    },
  },
  {
    id: "LOAD-01",
    suite: "default",
    level: "error",
    description: "every bundle file parses; manifests/ is flat",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-01"),
  },
  {
    id: "LOAD-02",
    suite: "default",
    level: "error",
    description: "the bundle holds at most one CSV",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-02"),
  },
  {
    id: "LOAD-03",
    suite: "default",
    level: "error",
    description: "the manifests and metadata annotations are relative paths inside the bundle",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-03"),
  },
  {
    id: "LOAD-04",
    suite: "default",
    level: "warning",
    description: "one object per manifest file (OLM's registry reads only the first document)",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-04"),
  },
  // Bundle content (operator-sdk).
  {
    id: "CNT-01",
    suite: "default",
    level: "error",
    description: "every object is of a kind a registry+v1 bundle may carry",
    run: (b) =>
      b.manifests
        .filter((m) => !SUPPORTED_KINDS.has(kindOf(m.object)))
        .map((m) =>
          finding(
            "CNT-01",
            "error",
            `${kindOf(m.object)} (${str(m.object.apiVersion)}) is not a kind OLM installs from a bundle; remove it (workloads go in the CSV's install strategy)`,
            m.file,
            "kind",
          ),
        ),
  },
  {
    id: "CNT-02",
    suite: "default",
    level: "error",
    description: "objects have a name and no namespace",
    run: (b) =>
      b.manifests.flatMap((m) => {
        const out: Finding[] = [];
        if (!nameOf(m.object))
          out.push(
            finding(
              "CNT-02",
              "error",
              "the object has no metadata.name; give it one",
              m.file,
              "metadata.name",
            ),
          );
        if (namespaceOf(m.object) && kindOf(m.object) !== "ClusterServiceVersion") {
          out.push(
            finding(
              "CNT-02",
              "error",
              `metadata.namespace is "${namespaceOf(m.object)}"; remove it: OLM installs the object into the operator's namespace`,
              m.file,
              "metadata.namespace",
            ),
          );
        }
        return out;
      }),
  },
  {
    id: "CNT-03",
    suite: "default",
    level: "error",
    description: "the bundle has a ClusterServiceVersion",
    run: (b) =>
      b.hasManifestsDir && !b.emptyManifests && !b.csv
        ? [
            finding(
              "CNT-03",
              "error",
              "the bundle has no ClusterServiceVersion; run `tsop bundle` to generate one into manifests/",
              "manifests/",
            ),
          ]
        : [],
  },
  // ClusterServiceVersion (operator-framework/api CSV validator).
  {
    suite: "default",
    ...csvChecks("CSV-01", "error", "metadata.name is a DNS-1123 subdomain of at most 63 characters", (v) => {
      const p = nameProblem(v.name);
      return p
        ? [
            finding(
              "CSV-01",
              "error",
              `CSV name "${v.name}" is not usable: ${p}; name it <package>.v<version>, e.g. memcached-operator.v0.0.1`,
              v.file.file,
              "metadata.name",
            ),
          ]
        : [];
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-02", "error", "spec.replaces is a valid CSV name", (v) => {
      const replaces = v.spec.replaces;
      if (replaces === undefined || replaces === "") return [];
      const p = nameProblem(str(replaces));
      return p
        ? [
            finding(
              "CSV-02",
              "error",
              `spec.replaces "${str(replaces)}" cannot name a CSV: ${p}; give the name of the CSV this one upgrades`,
              v.file.file,
              "spec.replaces",
            ),
          ]
        : [];
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-03", "warning", "the CSV has annotations", (v) =>
      v.annotations
        ? []
        : [
            finding(
              "CSV-03",
              "warning",
              "the CSV has no metadata.annotations; tsop bundle writes alm-examples, capabilities and the others there",
              v.file.file,
              "metadata.annotations",
            ),
          ],
    ),
  },
  {
    suite: "default",
    ...csvChecks("CSV-04", "warning", "alm-examples (or olm.examples) is present", (v) => {
      const a = v.annotations ?? {};
      if (a["alm-examples"] !== undefined && a["olm.examples"] !== undefined) {
        return [
          finding(
            "CSV-04",
            "warning",
            "both alm-examples and olm.examples are set; only alm-examples is read, remove olm.examples",
            v.file.file,
            "metadata.annotations",
          ),
        ];
      }
      return examples(v)
        ? []
        : [
            finding(
              "CSV-04",
              "warning",
              "the CSV has no alm-examples annotation; add a sample custom resource for each owned API (config/samples)",
              v.file.file,
              "metadata.annotations.alm-examples",
            ),
          ];
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-05", "error", "examples are a JSON list of objects", (v) => {
      const ex = examples(v);
      if (!ex) return [];
      const path = `metadata.annotations.${ex.key}`;
      if (ex.error)
        return [
          finding(
            "CSV-05",
            "error",
            `alm-examples is not valid JSON (${ex.error}); it must be a JSON list of custom resources`,
            v.file.file,
            path,
          ),
        ];
      if (!Array.isArray(ex.value) || !ex.value.every(isRecord)) {
        return [
          finding(
            "CSV-05",
            "error",
            "alm-examples is not a JSON list of objects; it must list custom resources",
            v.file.file,
            path,
          ),
        ];
      }
      return [];
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-06", "error", "owned CRD names are <plural>.<group>", (v) =>
      ownedApis(v)
        .filter((a) => a.source.startsWith("spec.customresourcedefinitions") && a.name.split(".").length < 3)
        .map((a) =>
          finding(
            "CSV-06",
            "error",
            `owned CRD name "${a.name}" is not <plural>.<group>; use the CRD's metadata.name, e.g. memcacheds.cache.example.com`,
            v.file.file,
            `${a.source}[${a.index}].name`,
          ),
        ),
    ),
  },
  {
    suite: "default",
    ...csvChecks("CSV-07", "error", "every example is of an API the CSV provides", (v) => {
      const ex = examples(v);
      if (!ex || !Array.isArray(ex.value)) return [];
      const provided = new Set(ownedApis(v).map((a) => `${a.group}/${a.version}, Kind=${a.kind}`));
      return ex.value.filter(isRecord).flatMap((e, i) => {
        const gvk = `${str(e.apiVersion)}, Kind=${str(e.kind)}`;
        return provided.has(gvk)
          ? []
          : [
              finding(
                "CSV-07",
                "error",
                `the example of ${gvk} is not of an API this CSV owns; remove it or add its CRD to spec.customresourcedefinitions.owned`,
                v.file.file,
                `metadata.annotations.${ex.key}[${i}]`,
              ),
            ];
      });
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-08", "warning", "every provided API has an example", (v) => {
      const ex = examples(v);
      const have = new Set(
        (Array.isArray(ex?.value) ? ex.value : [])
          .filter(isRecord)
          .map((e) => `${str(e.apiVersion)}, Kind=${str(e.kind)}`),
      );
      return ownedApis(v)
        .filter((a) => !have.has(`${a.group}/${a.version}, Kind=${a.kind}`))
        .map((a) =>
          finding(
            "CSV-08",
            "warning",
            `owned API ${a.group}/${a.version}, Kind=${a.kind} has no example in alm-examples; add a sample for it (config/samples)`,
            v.file.file,
            `${a.source}[${a.index}]`,
          ),
        );
    }),
  },
  {
    suite: "default",
    ...csvChecks(
      "CSV-09",
      "error",
      "install modes are present, known, unique, and fit conversion webhooks",
      (v) => {
        const modes = asRecords(v.spec.installModes);
        const file = v.file.file;
        if (modes.length === 0)
          return [
            finding(
              "CSV-09",
              "error",
              "spec.installModes is missing; list the four install modes and mark those the operator supports",
              file,
              "spec.installModes",
            ),
          ];
        const out: Finding[] = [];
        const seen = new Set<string>();
        modes.forEach((m, i) => {
          if (!INSTALL_MODES.includes(str(m.type)))
            out.push(
              finding(
                "CSV-09",
                "error",
                `unknown install mode type "${str(m.type)}"`,
                file,
                `spec.installModes[${i}].type`,
              ),
            );
          if (seen.has(str(m.type)))
            out.push(
              finding(
                "CSV-09",
                "error",
                `duplicate install mode type "${str(m.type)}"`,
                file,
                `spec.installModes[${i}].type`,
              ),
            );
          seen.add(str(m.type));
        });
        if (!modes.some((m) => m.supported === true))
          out.push(
            finding(
              "CSV-09",
              "error",
              "no install mode is supported; set supported: true on at least one (AllNamespaces suits most operators)",
              file,
              "spec.installModes",
            ),
          );
        const onlyAll = modes.every((m) => (m.type === "AllNamespaces") === (m.supported === true));
        asRecords(v.spec.webhookdefinitions).forEach((w, i) => {
          if (w.type === "ConversionWebhook" && !onlyAll) {
            out.push(
              finding(
                "CSV-09",
                "error",
                "a conversion webhook needs the operator in all namespaces: support AllNamespaces only",
                file,
                `spec.webhookdefinitions[${i}]`,
              ),
            );
          }
        });
        return out;
      },
    ),
  },
  {
    suite: "default",
    ...csvChecks("CSV-10", "warning", "spec.minKubeVersion is set to a full version", (v) => {
      const min = v.spec.minKubeVersion;
      if (min === undefined || min === "") {
        return [
          finding(
            "CSV-10",
            "warning",
            `spec.minKubeVersion is not set, so OLM offers ${v.name} to clusters of any Kubernetes version; set the oldest version you support (--min-kube-version, e.g. 1.28.0)`,
            v.file.file,
            "spec.minKubeVersion",
          ),
        ];
      }
      return strictSemver(String(min))
        ? []
        : [
            finding(
              "CSV-10",
              "error",
              `spec.minKubeVersion "${String(min)}" is not a full version; write MAJOR.MINOR.PATCH, e.g. 1.28.0`,
              v.file.file,
              "spec.minKubeVersion",
            ),
          ];
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-11", "error", "required CSV fields are set", (v) => {
      const out: Finding[] = [];
      const file = v.file.file;
      const missing = (path: string) =>
        out.push(
          finding(
            "CSV-11",
            "error",
            `${path} is missing; set it in the base CSV (config/manifests/bases)`,
            file,
            path,
          ),
        );
      if (!str(v.spec.displayName)) missing("spec.displayName");
      const install = isRecord(v.spec.install) ? v.spec.install : undefined;
      if (!install) missing("spec.install");
      else {
        if (!str(install.strategy)) missing("spec.install.strategy");
        if (install.strategy === "deployment" && deploymentsOf(v).length === 0)
          missing("spec.install.spec.deployments");
      }
      if (!str(v.spec.version)) missing("spec.version");
      else if (!semver.valid(str(v.spec.version)))
        out.push(
          finding(
            "CSV-11",
            "error",
            `spec.version "${str(v.spec.version)}" is not a semantic version`,
            file,
            "spec.version",
          ),
        );
      return out;
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-12", "error", "olm.* annotations use the right case", (v) => {
      const right = [
        "olm.operatorGroup",
        "olm.operatorNamespace",
        "olm.targetNamespaces",
        "olm.providedAPIs",
        "olm.skipRange",
      ];
      return Object.keys(v.annotations ?? {}).flatMap((k) => {
        const hit = right.find((r) => r.toLowerCase() === k.toLowerCase() && r !== k);
        return hit
          ? [
              finding(
                "CSV-12",
                "error",
                `annotation "${k}" has the wrong case: OLM reads "${hit}"; rename it`,
                v.file.file,
                `metadata.annotations.${k}`,
              ),
            ]
          : [];
      });
    }),
  },
  {
    suite: "default",
    ...csvChecks("CSV-13", "warning", "olm.properties is not used as an annotation", (v) =>
      v.annotations?.["olm.properties"] !== undefined
        ? [
            finding(
              "CSV-13",
              "warning",
              "olm.properties is set as a CSV annotation; move these properties to metadata/properties.yaml, where OLM and opm read them",
              v.file.file,
              "metadata.annotations.olm.properties",
            ),
          ]
        : [],
    ),
  },
  {
    suite: "default",
    ...csvChecks("CSV-14", "error", "apiVersion and kind are set", (v) => [
      ...(str(v.csv.apiVersion)
        ? []
        : [
            finding(
              "CSV-14",
              "error",
              "the CSV has no apiVersion; set operators.coreos.com/v1alpha1",
              v.file.file,
              "apiVersion",
            ),
          ]),
    ]),
  },
  {
    suite: "default",
    ...csvChecks(
      "CSV-15",
      "error",
      "features.operators.openshift.io annotations are known and true/false",
      (v) =>
        Object.entries(v.annotations ?? {})
          .filter(([k]) => k.startsWith(FEATURE_PREFIX))
          .flatMap(([k, value]) => {
            const name = k.slice(FEATURE_PREFIX.length);
            if (!FEATURES.includes(name))
              return [
                finding(
                  "CSV-15",
                  "error",
                  `unknown OpenShift feature annotation "${k}" (known: ${FEATURES.join(", ")})`,
                  v.file.file,
                  `metadata.annotations.${k}`,
                ),
              ];
            return value === "true" || value === "false"
              ? []
              : [
                  finding(
                    "CSV-15",
                    "error",
                    `OpenShift feature annotation "${k}" must be "true" or "false", not "${String(value)}"`,
                    v.file.file,
                    `metadata.annotations.${k}`,
                  ),
                ];
          }),
    ),
  },
  {
    suite: "default",
    ...csvChecks(
      "CSV-16",
      "error",
      "webhook definitions name a deployment, a port, a path, review versions, side effects and rules or owned CRDs",
      (v) => webhookDefinitionFindings(v),
    ),
  },
  {
    suite: "default",
    ...csvChecks(
      "RI-01",
      "error",
      "relatedImages, container images and containerImage are valid image references",
      (v) => [
        ...asRecords(v.spec.relatedImages).flatMap((r, i) => {
          const image = str(r.image);
          const path = `spec.relatedImages[${i}].image`;
          if (!image)
            return [
              finding(
                "RI-01",
                "error",
                `spec.relatedImages[${i}] has no image; give a pull spec or remove the entry`,
                v.file.file,
                path,
              ),
            ];
          return validPullSpec(image)
            ? []
            : [
                finding(
                  "RI-01",
                  "error",
                  `"${image}" is not an image reference; write registry/repository:tag or registry/repository@sha256:<digest>`,
                  v.file.file,
                  path,
                ),
              ];
        }),
        ...csvImageSites(v.csv).flatMap(([path, image]) => {
          const problem = imageReferenceProblem(image);
          return problem
            ? [finding("RI-01", "error", `invalid image reference "${image}": ${problem}`, v.file.file, path)]
            : [];
        }),
      ],
    ),
  },
  // CRDs.
  {
    id: "CRD-01",
    suite: "default",
    level: "error",
    description: "each CRD is valid: name, group, names, scope, one storage version, served versions",
    run: (b) =>
      b.crds.flatMap((m) => {
        const out: Finding[] = [];
        const at = (path: string, message: string) =>
          out.push(finding("CRD-01", "error", message, m.file, path));
        const c = crdInfo(m.object);
        if (!str(m.object.apiVersion).startsWith("apiextensions.k8s.io/v1"))
          at("apiVersion", `unsupported CustomResourceDefinition version ${str(m.object.apiVersion)}`);
        if (!c.group?.includes("."))
          at("spec.group", `spec.group "${c.group}" should be a domain with at least one dot`);
        if (!c.plural) at("spec.names.plural", "spec.names.plural: Required value");
        if (!c.kind) at("spec.names.kind", "spec.names.kind: Required value");
        if (c.plural && c.group && nameOf(m.object) !== `${c.plural}.${c.group}`) {
          at(
            "metadata.name",
            `metadata.name: Invalid value: "${nameOf(m.object)}": must be spec.names.plural+"."+spec.group`,
          );
        }
        if (!["Namespaced", "Cluster"].includes(str(c.spec.scope)))
          at(
            "spec.scope",
            `spec.scope: Unsupported value: "${str(c.spec.scope)}": supported values: "Cluster", "Namespaced"`,
          );
        if (c.versions.length === 0)
          at(
            "spec.versions",
            "spec.versions: Required value: must have exactly one version marked as storage version",
          );
        else {
          const storage = c.versions.filter((v) => v.storage === true).length;
          if (storage !== 1)
            at(
              "spec.versions",
              "spec.versions: Invalid value: must have exactly one version marked as storage version",
            );
          if (!c.versions.some((v) => v.served === true))
            at(
              "spec.versions",
              "spec.versions: Invalid value: must have at least one version marked as served",
            );
          const names = c.versions.map((v) => str(v.name));
          names.forEach((n, i) => {
            if (names.indexOf(n) !== i)
              at(`spec.versions[${i}].name`, `spec.versions[${i}].name: Duplicate value: "${n}"`);
          });
        }
        return out;
      }),
  },
  // Bundle-level consistency.
  {
    id: "BDL-01",
    suite: "default",
    level: "error",
    description: "no CRD version appears twice",
    run: (b) => {
      const seen = new Map<string, string>();
      const out: Finding[] = [];
      for (const m of b.crds) {
        const c = crdInfo(m.object);
        for (const v of c.versions) {
          const gvk = `${c.group}/${str(v.name)}, Kind=${c.kind}`;
          if (seen.has(gvk))
            out.push(
              finding(
                "BDL-01",
                "error",
                `CRD version ${gvk} is defined twice (also in ${seen.get(gvk)}); keep one file per CRD`,
                m.file,
              ),
            );
          else seen.set(gvk, m.file);
        }
      }
      return out;
    },
  },
  {
    suite: "default",
    ...csvChecks("BDL-02", "error", "every owned CRD is in the bundle", (v, b) => {
      const have = new Set(
        b.crds.flatMap((m) => {
          const c = crdInfo(m.object);
          return c.versions.map((ver) => `${c.group}/${str(ver.name)}, Kind=${c.kind}`);
        }),
      );
      return ownedApis(v)
        .filter((a) => a.source.startsWith("spec.customresourcedefinitions"))
        .filter((a) => !have.has(`${a.group}/${a.version}, Kind=${a.kind}`))
        .map((a) =>
          finding(
            "BDL-02",
            "error",
            `${v.name} owns ${a.group}/${a.version}, Kind=${a.kind}, but no CRD in the bundle defines it; add the CRD (tsop generate) or drop the entry`,
            v.file.file,
            `${a.source}[${a.index}]`,
          ),
        );
    }),
  },
  {
    suite: "default",
    ...csvChecks("BDL-03", "error", "every CRD in the bundle is owned by the CSV", (v, b) => {
      const owned = new Set(ownedApis(v).map((a) => `${a.group}/${a.kind}`));
      return b.crds.flatMap((m) => {
        const c = crdInfo(m.object);
        return owned.has(`${c.group}/${c.kind}`)
          ? []
          : [
              finding(
                "BDL-03",
                "error",
                `CRD ${c.group}/${str(c.versions[0]?.name)}, Kind=${c.kind} is in the bundle, but ${v.name} does not own it; add it to spec.customresourcedefinitions.owned (tsop bundle does) or remove the file`,
                m.file,
              ),
            ];
      });
    }),
  },
  {
    suite: "default",
    ...csvChecks(
      "BDL-04",
      "error",
      "no ServiceAccount object duplicates a CSV deployment's service account",
      (v, b) => {
        const accounts = new Set(
          deploymentsOf(v).map((d) =>
            str(podSpecOf({ kind: "Deployment", spec: d.spec })?.serviceAccountName),
          ),
        );
        return b.manifests
          .filter((m) => kindOf(m.object) === "ServiceAccount" && accounts.has(nameOf(m.object)))
          .map((m) =>
            finding(
              "BDL-04",
              "error",
              `ServiceAccount ${nameOf(m.object)} is the account a CSV deployment runs as, which OLM creates itself; remove this file`,
              m.file,
            ),
          );
      },
    ),
  },
  {
    id: "BDL-05",
    suite: "default",
    level: "error",
    description: "the bundle's compressed size stays under 1 MiB (warning above 85%)",
    run: (b) => {
      if (!b.hasManifestsDir || b.manifests.length === 0) return [];
      const { compressed, bytes: size } = b.size;
      if (compressed > MAX_COMPRESSED) {
        return [
          finding(
            "BDL-05",
            "error",
            `the manifests compress to ~${(compressed / 1024 / 1024).toFixed(2)} MiB (${(size / 1024 / 1024).toFixed(2)} MiB uncompressed), over the 1 MiB OLM can store; make them smaller, e.g. shorter CRD descriptions (tsop generate --max-desc-len)`,
            "manifests/",
          ),
        ];
      }
      if (compressed > MAX_COMPRESSED * 0.85) {
        return [
          finding(
            "BDL-05",
            "warning",
            `the manifests compress to ~${(compressed / 1024 / 1024).toFixed(2)} MiB, close to the 1 MiB OLM can store`,
            "manifests/",
          ),
        ];
      }
      return [];
    },
  },
  // Optional: operatorhub.
  {
    suite: "operatorhub",
    ...csvChecks("OH-01", "error", "spec.provider.name is set", (v) =>
      str(isRecord(v.spec.provider) ? v.spec.provider.name : "").trim()
        ? []
        : [
            finding(
              "OH-01",
              "error",
              "spec.provider.name is not set; name who provides the operator (--provider-name)",
              v.file.file,
              "spec.provider.name",
            ),
          ],
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-02", "error", "maintainers have a name and a valid email", (v) =>
      asRecords(v.spec.maintainers).flatMap((m, i) => {
        if (!str(m.name) || !str(m.email))
          return [
            finding(
              "OH-02",
              "error",
              "a maintainer needs both a name and an email",
              v.file.file,
              `spec.maintainers[${i}]`,
            ),
          ];
        return /^[^\s@]+@[^\s@]+$/.test(str(m.email))
          ? []
          : [
              finding(
                "OH-02",
                "error",
                `maintainer email "${str(m.email)}" is not an email address`,
                v.file.file,
                `spec.maintainers[${i}].email`,
              ),
            ];
      }),
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-03", "error", "links have a name and a valid URL", (v) =>
      asRecords(v.spec.links).flatMap((l, i) => {
        if (!str(l.name) || !str(l.url))
          return [
            finding("OH-03", "error", "a link needs both a name and a url", v.file.file, `spec.links[${i}]`),
          ];
        try {
          new URL(str(l.url));
          return [];
        } catch {
          return [
            finding(
              "OH-03",
              "error",
              `link url "${str(l.url)}" is not a URL`,
              v.file.file,
              `spec.links[${i}].url`,
            ),
          ];
        }
      }),
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-04", "error", "spec.version is set and not 0.0.0", (v) =>
      str(v.spec.version) && str(v.spec.version) !== "0.0.0"
        ? []
        : [
            finding(
              "OH-04",
              "error",
              "spec.version is not set (or is 0.0.0); pass --version to tsop bundle",
              v.file.file,
              "spec.version",
            ),
          ],
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-05", "error", "one icon with data and a supported media type", (v) => {
      const icons = asRecords(v.spec.icon);
      if (icons.length === 0)
        return [
          finding(
            "OH-05",
            "warning",
            "the CSV has no icon; add one with --icon <file>",
            v.file.file,
            "spec.icon",
          ),
        ];
      if (icons.length !== 1)
        return [
          finding("OH-05", "error", `spec.icon holds several icons; keep one`, v.file.file, "spec.icon"),
        ];
      const icon = icons[0]!;
      if (!str(icon.base64data) || !str(icon.mediatype))
        return [
          finding(
            "OH-05",
            "error",
            "the icon needs both base64data and mediatype; add it with --icon <file>",
            v.file.file,
            "spec.icon[0]",
          ),
        ];
      return ["image/gif", "image/jpeg", "image/png", "image/svg+xml"].includes(str(icon.mediatype))
        ? []
        : [
            finding(
              "OH-05",
              "error",
              `icon media type "${str(icon.mediatype)}" is not supported; use image/png, image/svg+xml, image/jpeg or image/gif`,
              v.file.file,
              "spec.icon[0].mediatype",
            ),
          ];
    }),
  },
  {
    suite: "capabilities",
    ...csvChecks("CAP-01", "error", "the capabilities annotation is a known level", (v) => {
      const value = v.annotations?.capabilities;
      return value === undefined || CAPABILITY_LEVELS.includes(str(value))
        ? []
        : [
            finding(
              "CAP-01",
              "error",
              `capability level "${str(value)}" is unknown; use Basic Install, Seamless Upgrades, Full Lifecycle, Deep Insights or Auto Pilot`,
              v.file.file,
              "metadata.annotations.capabilities",
            ),
          ];
    }),
  },
  {
    suite: "categories",
    ...csvChecks(
      "CAT-01",
      "error",
      "categories are from the standard (or OPERATOR_BUNDLE_CATEGORIES) set",
      (v, _b, ctx) => {
        const value = v.annotations?.categories;
        if (value === undefined) return [];
        const known = ctx.categories ?? STANDARD_CATEGORIES;
        return str(value)
          .split(",")
          .map((c) => c.trim())
          .filter((c) => c && !known.includes(c))
          .map((c) =>
            finding(
              "CAT-01",
              "error",
              `category "${c}" is not in the standard list; pick one from it, or set OPERATOR_BUNDLE_CATEGORIES to a file with your own list`,
              v.file.file,
              "metadata.annotations.categories",
            ),
          );
      },
    ),
  },
  // Optional: good practices.
  {
    suite: "good-practices",
    ...csvChecks("GP-01", "error", "the CSV installs at least one deployment", (v) =>
      deploymentsOf(v).length > 0
        ? []
        : [
            finding(
              "GP-01",
              "error",
              "the CSV installs no deployment; spec.install.spec.deployments is empty",
              v.file.file,
              "spec.install.spec.deployments",
            ),
          ],
    ),
  },
  {
    suite: "good-practices",
    ...csvChecks("GP-02", "warning", "containers declare resource requests", (v) =>
      deploymentsOf(v).flatMap((d, i) =>
        asRecords(podSpecOf({ kind: "Deployment", spec: d.spec })?.containers).flatMap((c, j) =>
          isRecord(c.resources) && isRecord(c.resources.requests)
            ? []
            : [
                finding(
                  "GP-02",
                  "warning",
                  `container ${str(c.name)} requests no resources; request CPU and memory so the scheduler can place it`,
                  v.file.file,
                  `spec.install.spec.deployments[${i}].spec.template.spec.containers[${j}].resources.requests`,
                ),
              ],
        ),
      ),
    ),
  },
  {
    suite: "good-practices",
    ...csvChecks("GP-03", "warning", "owned and required CRDs have descriptions", (v) => {
      const crds = isRecord(v.spec.customresourcedefinitions) ? v.spec.customresourcedefinitions : {};
      return ["owned", "required"].flatMap((key) =>
        asRecords(crds[key]).flatMap((c, i) =>
          str(c.description).trim()
            ? []
            : [
                finding(
                  "GP-03",
                  "warning",
                  `${key} CRD "${str(c.name)}" has no description; describe it (the description of the base CSV entry, from the kind's doc comment)`,
                  v.file.file,
                  `spec.customresourcedefinitions.${key}[${i}].description`,
                ),
              ],
        ),
      );
    }),
  },
  {
    id: "GP-04",
    suite: "good-practices",
    level: "warning",
    description: "channel names start with candidate, stable or fast",
    run: (b) => {
      const channels = str(b.annotations?.[ANNOTATION.channels])
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean);
      const bad = channels.filter((c) => !/^(candidate|stable|fast)/.test(c));
      return bad.length > 0
        ? [
            finding(
              "GP-04",
              "warning",
              `channel name(s) ${bad.join(", ")} do not start with candidate, stable or fast, as OLM's channel naming guide recommends (https://olm.operatorframework.io/docs/best-practices/channel-naming)`,
              b.annotationsFile,
              `annotations.${ANNOTATION.channels}`,
            ),
          ]
        : [];
    },
  },
  {
    suite: "good-practices",
    ...csvChecks("GP-05", "warning", "the operator does not grant itself CRD creation", (v) =>
      allRules(v)
        .filter(({ rule }) => {
          const groups = asArray(rule.apiGroups).map(String);
          const resources = asArray(rule.resources).map(String);
          const verbs = asArray(rule.verbs).map(String);
          return (
            (groups.includes("apiextensions.k8s.io") || groups.includes("*")) &&
            (resources.includes("customresourcedefinitions") || resources.includes("*")) &&
            verbs.some((x) => ["create", "patch", "*"].includes(x))
          );
        })
        .map(({ path }) =>
          finding(
            "GP-05",
            "warning",
            "the operator may create CustomResourceDefinitions; ship your CRDs in the bundle instead of creating them (or other operators' CRDs) at run time",
            v.file.file,
            path,
          ),
        ),
    ),
  },
  {
    suite: "good-practices",
    ...csvChecks("GP-06", "warning", "the CSV name is <package>.v<semver>", (v) => {
      const parts = v.name.split(".v");
      if (parts.length !== 2)
        return [
          finding(
            "GP-06",
            "warning",
            `CSV name "${v.name}" is not <package>.v<version>; name it e.g. memcached-operator.v0.0.1 (tsop bundle --version does)`,
            v.file.file,
            "metadata.name",
          ),
        ];
      return semver.valid(parts[1]!)
        ? []
        : [
            finding(
              "GP-06",
              "warning",
              `the version in CSV name "${v.name}" is not MAJOR.MINOR.PATCH; name it e.g. memcached-operator.v0.0.1`,
              v.file.file,
              "metadata.name",
            ),
          ];
    }),
  },
  // Optional: deprecated APIs.
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
  // Optional: community (needs olm.maxOpenShiftVersion when 1.22-removed APIs are used).
  {
    suite: "community",
    ...csvChecks(
      "COM-01",
      "error",
      "bundles using APIs removed in 1.22 pin olm.maxOpenShiftVersion below 4.9",
      (v, b) => {
        const removed = new Set(REMOVED["1.22"]);
        if (!b.manifests.some((m) => removed.has(`${str(m.object.apiVersion)} ${kindOf(m.object)}`)))
          return [];
        let max: string | undefined;
        try {
          const props = JSON.parse(str(v.annotations?.["olm.properties"]) || "[]") as Array<{
            type?: string;
            value?: unknown;
          }>;
          max = props.find((p) => p.type === "olm.maxOpenShiftVersion")?.value as string | undefined;
        } catch {
          /* reported below as missing */
        }
        if (max === undefined)
          return [
            finding(
              "COM-01",
              "error",
              "the bundle uses APIs removed in Kubernetes 1.22 (OpenShift 4.9) but sets no olm.maxOpenShiftVersion; set it to 4.8 so OpenShift 4.9 and later do not offer the bundle",
              v.file.file,
              "metadata.annotations.olm.properties",
            ),
          ];
        const parsed = kubeVersion(String(max));
        return parsed && semver.lt(parsed, "4.9.0")
          ? []
          : [
              finding(
                "COM-01",
                "error",
                `olm.maxOpenShiftVersion ${String(max)} must be lower than 4.9 for a bundle using APIs removed in Kubernetes 1.22`,
                v.file.file,
                "metadata.annotations.olm.properties",
              ),
            ];
      },
    ),
  },
  // Optional: OLM v1 compatibility (its own module).
  ...OLM_V1_CHECKS,
];

/** Suite names accepted by --select-optional, and the operator-sdk label spellings they replace. */
export const OPTIONAL_SUITES: Record<string, string[]> = {
  operatorhub: ["operatorhub"],
  capabilities: ["capabilities"],
  categories: ["categories"],
  "good-practices": ["good-practices"],
  "deprecated-apis": ["deprecated-apis"],
  community: ["community"],
  "olm-v1": ["olm-v1"],
  "suite=operatorframework": [
    "operatorhub",
    "capabilities",
    "categories",
    "deprecated-apis",
    "good-practices",
  ],
  "name=operatorhubv2": ["operatorhub"],
  "name=operatorhub": ["operatorhub", "capabilities", "categories"],
  "name=capabilities": ["capabilities"],
  "name=categories": ["categories"],
  "name=good-practices": ["good-practices"],
  "name=alpha-deprecated-apis": ["deprecated-apis"],
  "name=community": ["community"],
};
