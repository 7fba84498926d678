// Optional suite "community", as operator-framework/api's community validator checks a bundle
// (COM-01): a bundle using APIs removed in 1.22 pins olm.maxOpenShiftVersion below 4.9.
import semver from "semver";
import { kindOf, str } from "../../../manifests/index.js";
import type { Check } from "../check.js";
import { csvChecks, finding, kubeVersion } from "../util.js";
import { REMOVED } from "./deprecated-apis.js";

export const COMMUNITY_CHECKS: Check[] = [
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
];
