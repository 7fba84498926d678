// The registry of bundle checks: every family of checks (one module under checks/, as
// operator-framework/api keeps one file per validator), in the order findings are reported. The
// default suite mirrors operator-framework's default validators (format, content, CSV, CRD, bundle)
// and always runs; the optional suites mirror operatorhub, capabilities, categories, good-practices,
// deprecated APIs and community, plus an OLM v1 compatibility suite. Ids are stable: tests and
// users match on them.
//
// A new suite is one module under checks/ (its checks carry the suite's name) and one line in
// CHECKS below: --select-optional accepts the suite's name from then on.
import type { Check } from "./check.js";
import { BUNDLE_CHECKS } from "./checks/bundle.js";
import { CAPABILITY_CHECKS } from "./checks/capabilities.js";
import { CATEGORY_CHECKS } from "./checks/categories.js";
import { COMMUNITY_CHECKS } from "./checks/community.js";
import { CONTENT_CHECKS } from "./checks/content.js";
import { CRD_CHECKS } from "./checks/crd.js";
import { CSV_CHECKS } from "./checks/csv.js";
import { DEPRECATED_API_CHECKS } from "./checks/deprecated-apis.js";
import { FORMAT_CHECKS } from "./checks/format.js";
import { GOOD_PRACTICE_CHECKS } from "./checks/good-practices.js";
import { LOAD_CHECKS } from "./checks/load.js";
import { OLM_V1_CHECKS } from "./checks/olm-v1.js";
import { OPERATORHUB_CHECKS } from "./checks/operatorhub.js";
import { RELATED_IMAGE_CHECKS } from "./checks/related-images.js";

export const CHECKS: Check[] = [
  // The default suite.
  ...FORMAT_CHECKS, // FMT-
  ...LOAD_CHECKS, // LOAD-
  ...CONTENT_CHECKS, // CNT-
  ...CSV_CHECKS, // CSV-
  ...RELATED_IMAGE_CHECKS, // RI-
  ...CRD_CHECKS, // CRD-
  ...BUNDLE_CHECKS, // BDL-
  // Optional suites (--select-optional).
  ...OPERATORHUB_CHECKS, // OH-
  ...CAPABILITY_CHECKS, // CAP-
  ...CATEGORY_CHECKS, // CAT-
  ...GOOD_PRACTICE_CHECKS, // GP-
  ...DEPRECATED_API_CHECKS, // DEP-
  ...COMMUNITY_CHECKS, // COM-
  ...OLM_V1_CHECKS, // V1-
];

/** operator-sdk's selector spellings (`suite=…`, `name=…` labels) and the suites each one runs. */
const OPERATOR_SDK_SELECTORS: Record<string, string[]> = {
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

const optionalSuites = [...new Set(CHECKS.map((c) => c.suite))].filter((s) => s !== "default");

/**
 * Selectors accepted by --select-optional: each optional suite by its own name (in CHECKS order),
 * then the operator-sdk label spellings they replace.
 */
export const OPTIONAL_SUITES: Record<string, string[]> = {
  ...Object.fromEntries(optionalSuites.map((s) => [s, [s]])),
  ...OPERATOR_SDK_SELECTORS,
};
