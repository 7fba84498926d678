// Optional suite "capabilities", as operator-framework/api's standard-capabilities validator checks
// a CSV (CAP-01): the capabilities annotation names a known level.
import { str } from "../../../manifests/index.js";
import { CAPABILITY_LEVELS } from "../../fields.js";
import type { Check } from "../check.js";
import { csvChecks, finding } from "../util.js";

export const CAPABILITY_CHECKS: Check[] = [
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
];
