// CustomResourceDefinitions, as operator-framework/api's CRD validator checks them (CRD-01): name,
// group, names, scope, exactly one storage version, served versions. Default suite.
import { nameOf, str } from "../../../manifests/index.js";
import type { Finding } from "../../load/types.js";
import type { Check } from "../check.js";
import { crdInfo, finding } from "../util.js";

export const CRD_CHECKS: Check[] = [
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
];
