// Optional suite "good-practices", as operator-framework/api's good-practices validator checks a
// bundle (GP-01…06): deployments, resource requests, CRD descriptions, channel names, no CRD
// creation at run time, the <package>.v<semver> CSV name.
import semver from "semver";
import { asArray, asRecords, isRecord, podSpecOf, str } from "../../../manifests/index.js";
import { ANNOTATION } from "../../metadata.js";
import type { Check } from "../check.js";
import { allRules, csvChecks, deploymentsOf, finding } from "../util.js";

export const GOOD_PRACTICE_CHECKS: Check[] = [
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
];
