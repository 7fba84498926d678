// Optional suite "categories", as operator-framework/api's standard-categories validator checks a
// CSV (CAT-01): its categories come from the standard list, or from OPERATOR_BUNDLE_CATEGORIES.
import { str } from "../../../manifests/index.js";
import type { Check } from "../check.js";
import { csvChecks, finding } from "../util.js";

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

export const CATEGORY_CHECKS: Check[] = [
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
];
