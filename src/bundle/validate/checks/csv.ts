// The ClusterServiceVersion, as operator-framework/api's CSV validator checks it (CSV-01…16): names,
// annotations, examples (alm-examples), install modes, required fields, OpenShift feature
// annotations, webhook definitions (csv-webhooks.ts). Default suite.
import semver from "semver";
import { asRecords, isRecord, str } from "../../../manifests/index.js";
import { FEATURE_PREFIX, FEATURES } from "../../features.js";
import { INSTALL_MODES } from "../../fields.js";
import type { Finding } from "../../load/types.js";
import type { Check } from "../check.js";
import { csvChecks, csvView, deploymentsOf, finding, nameProblem, ownedApis, strictSemver } from "../util.js";

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

export const CSV_CHECKS: Check[] = [
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
];
