// Bundle content, as operator-sdk checks it (CNT-01…03): every object is of a kind a registry+v1
// bundle may carry, has a name and no namespace, and there is a ClusterServiceVersion. Default suite.
import { kindOf, nameOf, namespaceOf, str } from "../../../manifests/index.js";
import { SUPPORTED_KINDS } from "../../files.js";
import type { Finding } from "../../load/types.js";
import type { Check } from "../check.js";
import { finding } from "../util.js";

export const CONTENT_CHECKS: Check[] = [
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
];
