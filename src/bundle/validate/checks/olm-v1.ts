// Optional suite "olm-v1" (V1-01…07): what OLM v1 (operator-controller v1.11.0, standard feature set) refuses or
// ignores in a registry+v1 bundle, beyond what the default suite already holds every bundle to.
// Sources: its documented limits (AllNamespaces, no dependencies, no OperatorConditions), the
// install-time checks of its manifest provider (no owned APIServices, AllNamespaces unless an alpha
// gate is on), the catalog validation that refuses olm.gvk.required, olm.package.required and
// olm.constraint, and the registry+v1 bundle validator (deployment names; webhook rules and
// conversion CRDs). What OLM v1 shares with OLM v0 (objects in manifests/, supported kinds, owned
// CRDs present, conversion webhooks only for AllNamespaces-only operators, webhook names and
// deployments) is the default suite's FMT-09, CNT-01, BDL-02, CSV-09 and CSV-16.
import { asArray, asRecords, isRecord, str } from "../../../manifests/index.js";
import type { Finding, LoadedBundle } from "../../load/types.js";
import type { Check } from "../check.js";
import { allRules, type CsvView, csvChecks, csvView, deploymentsOf, finding } from "../util.js";

const SUITE = "olm-v1";
/** Catalog properties OLM v1's resolver refuses (resolve.NoDependencyValidation). */
const DEPENDENCY_PROPERTIES = ["olm.gvk.required", "olm.package.required", "olm.constraint"];
/** dependencies.yaml entry type → the catalog property `opm render` makes of it. */
const DEPENDENCY_ENTRIES: Record<string, string> = {
  "olm.gvk": "olm.gvk.required",
  "olm.package": "olm.package.required",
  "olm.constraint": "olm.constraint",
};
const FORBIDDEN_RULE_GROUPS = new Set(["*", "olm.operatorframework.io"]);
const FORBIDDEN_ADMISSION_RESOURCES = new Set([
  "*",
  "mutatingwebhookconfiguration",
  "mutatingwebhookconfigurations",
  "validatingwebhookconfiguration",
  "validatingwebhookconfigurations",
]);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function definitions(v: CsvView, field: string, which: "owned" | "required") {
  const defs = v.spec[field];
  return isRecord(defs) ? asRecords(defs[which]) : [];
}

const gvkText = (group: string, version: string, kind: string) => `${group}/${version} ${kind}`;

function allNamespaces(v: CsvView): Finding[] {
  if (asRecords(v.spec.installModes).some((m) => m.type === "AllNamespaces" && m.supported === true))
    return [];
  return [
    finding(
      "V1-01",
      "error",
      "OLM v1 installs only operators that support the AllNamespaces install mode (SingleNamespace and OwnNamespace need its alpha SingleOwnNamespaceInstallSupport gate); support AllNamespaces",
      v.file.file,
      "spec.installModes",
    ),
  ];
}

function webhookLimits(v: CsvView): Finding[] {
  const out: Finding[] = [];
  const bad = (message: string, path: string) =>
    out.push(finding("V1-02", "error", message, v.file.file, path));
  const converters = new Map<string, string>();
  asRecords(v.spec.webhookdefinitions).forEach((w, i) => {
    const at = `spec.webhookdefinitions[${i}]`;
    const name = str(w.generateName);
    if (w.type === "ConversionWebhook") {
      for (const crd of asArray(w.conversionCRDs).map(String)) {
        const first = converters.get(crd);
        if (first === undefined) converters.set(crd, name);
        else
          bad(
            `conversion webhooks ${first} and ${name} both convert ${crd}; OLM v1 allows one conversion webhook per CRD: keep one`,
            `${at}.conversionCRDs`,
          );
      }
      return;
    }
    asRecords(w.rules).forEach((rule, j) => {
      const groups = asArray(rule.apiGroups).map(String);
      for (const group of groups.filter((g) => FORBIDDEN_RULE_GROUPS.has(g)))
        bad(
          `webhook ${name} has a rule on API group "${group}"; OLM v1 refuses admission rules on all groups and on its own group olm.operatorframework.io: list the groups the webhook needs`,
          `${at}.rules[${j}].apiGroups`,
        );
      if (!groups.includes("admissionregistration.k8s.io")) return;
      for (const resource of asArray(rule.resources).map(String))
        if (FORBIDDEN_ADMISSION_RESOURCES.has(resource.toLowerCase()))
          bad(
            `webhook ${name} has a rule on "${resource}" of admissionregistration.k8s.io; OLM v1 refuses admission rules on webhook configurations (or all of that group): drop that resource`,
            `${at}.rules[${j}].resources`,
          );
    });
  });
  return out;
}

const REFUSED = "OLM v1 refuses bundles with dependencies";

function dependencies(b: LoadedBundle): Finding[] {
  const out: Finding[] = [];
  const v = csvView(b);
  if (v) {
    for (const field of ["apiservicedefinitions", "customresourcedefinitions"]) {
      definitions(v, field, "required").forEach((d, i) => {
        const group =
          field === "customresourcedefinitions" ? str(d.name).split(".").slice(1).join(".") : str(d.group);
        out.push(
          finding(
            "V1-03",
            "error",
            `${REFUSED}: this required API becomes the catalog property olm.gvk.required; remove it and have users install the operator that provides ${gvkText(group, str(d.version), str(d.kind))} first`,
            v.file.file,
            `spec.${field}.required[${i}]`,
          ),
        );
      });
    }
  }
  entries(b.dependencies, "dependencies").forEach((d, i) => {
    const property = DEPENDENCY_ENTRIES[str(d.type)];
    if (!property) return;
    const value = isRecord(d.value) ? d.value : {};
    const remedy =
      d.type === "olm.gvk"
        ? `have users install the operator that provides ${gvkText(str(value.group), str(value.version), str(value.kind))} first`
        : d.type === "olm.package"
          ? `have users install ${str(value.packageName)} first`
          : "document the prerequisite";
    out.push(
      finding(
        "V1-03",
        "error",
        `${REFUSED}: this ${str(d.type)} dependency becomes the catalog property ${property}; remove it and ${remedy}`,
        b.dependenciesFile,
        `dependencies[${i}]`,
      ),
    );
  });
  entries(b.properties, "properties").forEach((p, i) => {
    if (!DEPENDENCY_PROPERTIES.includes(str(p.type))) return;
    out.push(
      finding(
        "V1-03",
        "error",
        `${REFUSED}: ${b.propertiesFile ?? "metadata/properties.yaml"} declares ${str(p.type)}; remove it and document the prerequisite`,
        b.propertiesFile,
        `properties[${i}]`,
      ),
    );
  });
  return out;
}

function entries(file: unknown, key: string) {
  return isRecord(file) ? asRecords(file[key]) : [];
}

function ownedApiServices(v: CsvView): Finding[] {
  if (definitions(v, "apiservicedefinitions", "owned").length === 0) return [];
  return [
    finding(
      "V1-04",
      "error",
      "OLM v1 refuses bundles that own APIServices; serve the API as a CustomResourceDefinition instead",
      v.file.file,
      "spec.apiservicedefinitions.owned",
    ),
  ];
}

function labelDependencies(b: LoadedBundle): Finding[] {
  return entries(b.dependencies, "dependencies").flatMap((d, i) => {
    if (d.type !== "olm.label") return [];
    const label = isRecord(d.value) ? str(d.value.label) : "";
    return [
      finding(
        "V1-05",
        "warning",
        `OLM v1 ignores olm.label dependencies: nothing makes sure an operator with label ${label} is installed; document it as a prerequisite`,
        b.dependenciesFile,
        `dependencies[${i}]`,
      ),
    ];
  });
}

function operatorConditions(v: CsvView): Finding[] {
  return allRules(v).flatMap(({ rule, path }) => {
    const groups = asArray(rule.apiGroups).map(String);
    const resources = asArray(rule.resources).map(String);
    if (!groups.includes("operators.coreos.com")) return [];
    if (!resources.some((r) => r === "operatorconditions" || r.startsWith("operatorconditions/"))) return [];
    return [
      finding(
        "V1-06",
        "warning",
        "the operator may use the OperatorCondition API (its RBAC grants operatorconditions), which OLM v1 does not provide: it creates no OperatorCondition and sets no OPERATOR_CONDITION_NAME",
        v.file.file,
        path,
      ),
    ];
  });
}

function deploymentNames(v: CsvView): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  deploymentsOf(v).forEach((d, i) => {
    const name = str(d.name);
    const at = `spec.install.spec.deployments[${i}].name`;
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
      out.push(
        finding(
          "V1-07",
          "error",
          `deployment name "${name}" is not a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", starting and ending with a letter or digit); OLM v1 refuses it`,
          v.file.file,
          at,
        ),
      );
    else if (seen.has(name))
      out.push(
        finding(
          "V1-07",
          "error",
          `deployment name "${name}" is used twice; OLM v1 refuses a bundle whose install strategy repeats a deployment name`,
          v.file.file,
          at,
        ),
      );
    seen.add(name);
  });
  return out;
}

export const OLM_V1_CHECKS: Check[] = [
  {
    suite: SUITE,
    ...csvChecks(
      "V1-01",
      "error",
      "AllNamespaces install mode is supported (OLM v1 installs cluster-wide)",
      allNamespaces,
    ),
  },
  {
    suite: SUITE,
    ...csvChecks(
      "V1-02",
      "error",
      "webhooks within OLM v1's limits: no rules on all groups, on olm.operatorframework.io or on webhook configurations; one conversion webhook per CRD",
      webhookLimits,
    ),
  },
  {
    id: "V1-03",
    suite: SUITE,
    level: "error",
    description:
      "no dependencies: olm.gvk.required, olm.package.required or olm.constraint (OLM v1 refuses them)",
    run: dependencies,
  },
  { suite: SUITE, ...csvChecks("V1-04", "error", "no owned APIServices", ownedApiServices) },
  {
    id: "V1-05",
    suite: SUITE,
    level: "warning",
    description: "no olm.label dependencies (OLM v1 ignores them)",
    run: labelDependencies,
  },
  {
    suite: SUITE,
    ...csvChecks(
      "V1-06",
      "warning",
      "no use of the OperatorCondition API (OLM v1 does not provide it)",
      operatorConditions,
    ),
  },
  {
    suite: SUITE,
    ...csvChecks(
      "V1-07",
      "error",
      "install strategy deployment names are unique DNS-1123 subdomains",
      deploymentNames,
    ),
  },
];
