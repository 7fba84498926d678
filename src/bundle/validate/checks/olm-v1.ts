// Optional suite "olm-v1" (V1-01…04): what OLM v1 cannot install: no AllNamespaces install mode,
// webhook definitions, dependencies or required CRDs, owned API services.
import { asArray, asRecords, isRecord } from "../../../manifests/index.js";
import type { Finding } from "../../load/types.js";
import type { Check } from "../check.js";
import { csvChecks, csvView, finding } from "../util.js";

export const OLM_V1_CHECKS: Check[] = [
  {
    suite: "olm-v1",
    ...csvChecks(
      "V1-01",
      "error",
      "AllNamespaces install mode is supported (OLM v1 installs cluster-wide)",
      (v) =>
        asRecords(v.spec.installModes).some((m) => m.type === "AllNamespaces" && m.supported === true)
          ? []
          : [
              finding(
                "V1-01",
                "error",
                "OLM v1 only supports operators that support the AllNamespaces install mode",
                v.file.file,
                "spec.installModes",
              ),
            ],
    ),
  },
  {
    suite: "olm-v1",
    ...csvChecks(
      "V1-02",
      "error",
      "no webhook definitions (OLM v1 does not manage webhook certificates)",
      (v) =>
        asRecords(v.spec.webhookdefinitions).length === 0
          ? []
          : [
              finding(
                "V1-02",
                "error",
                "OLM v1 does not support bundles with webhookdefinitions",
                v.file.file,
                "spec.webhookdefinitions",
              ),
            ],
    ),
  },
  {
    id: "V1-03",
    suite: "olm-v1",
    level: "error",
    description: "no dependencies (OLM v1 does not resolve them)",
    run: (b) => {
      const out: Finding[] = [];
      const deps = isRecord(b.dependencies) ? asArray(b.dependencies.dependencies) : [];
      if (deps.length > 0)
        out.push(
          finding(
            "V1-03",
            "error",
            "OLM v1 does not support bundle dependencies (metadata/dependencies.yaml)",
            b.dependenciesFile,
            "dependencies",
          ),
        );
      const v = csvView(b);
      const required =
        v && isRecord(v.spec.customresourcedefinitions)
          ? asRecords(v.spec.customresourcedefinitions.required)
          : [];
      if (v && required.length > 0)
        out.push(
          finding(
            "V1-03",
            "error",
            "OLM v1 does not support required CRDs (spec.customresourcedefinitions.required)",
            v.file.file,
            "spec.customresourcedefinitions.required",
          ),
        );
      return out;
    },
  },
  {
    suite: "olm-v1",
    ...csvChecks("V1-04", "error", "no API service definitions", (v) =>
      isRecord(v.spec.apiservicedefinitions) && asRecords(v.spec.apiservicedefinitions.owned).length > 0
        ? [
            finding(
              "V1-04",
              "error",
              "OLM v1 does not support bundles that own APIServices",
              v.file.file,
              "spec.apiservicedefinitions.owned",
            ),
          ]
        : [],
    ),
  },
];
