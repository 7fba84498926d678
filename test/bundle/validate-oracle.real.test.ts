// operator-sdk as the oracle of `tsop bundle validate`: for every case of the broken-bundle corpus
// (corpus.ts), tsop's verdict on the case's check (error, warning or ok) equals operator-sdk's
// verdict on the same directory — the worst level among the findings operator-sdk adds to those it
// reports for the unbroken bundle — unless the case is a deliberate difference listed below (and
// in docs/bundle.md, with the reason). A listed difference that stops being one fails too.
import { describe, expect, test } from "vitest";
import { validateBundleDir } from "../../src/bundle/validate/index.js";
import { sdkValidate, type SdkVerdict } from "../support/operator-sdk.js";
import { type Case, CASES, validBundle } from "./corpus.js";

type Verdict = "error" | "warning" | "ok";

/** operator-sdk's --select-optional selector for each of tsop's optional suites. */
const SDK_SELECTORS: Record<string, string> = {
  operatorhub: "name=operatorhubv2",
  capabilities: "name=capabilities",
  categories: "name=categories",
  "good-practices": "name=good-practices",
  "deprecated-apis": "name=alpha-deprecated-apis",
  community: "name=community",
  "suite=operatorframework": "suite=operatorframework",
};

/**
 * Deliberate differences: tsop's verdict stands, operator-sdk's is recorded with why they differ.
 * docs/bundle.md ("tsop and operator-sdk") carries the same list.
 */
const DIFFERENCES: Record<string, { sdk: Verdict; why: string }> = {
  "LOAD-04": { sdk: "ok", why: "OLM's registry reads only the first YAML document of a manifest file" },
  "CSV-15": { sdk: "ok", why: "operator-sdk does not check OpenShift feature annotation values" },
  "CSV-16": {
    sdk: "ok",
    why: "operator-sdk leaves webhookdefinitions to OLM, which fails the CSV at install",
  },
  "RI-01": {
    sdk: "ok",
    why: "operator-sdk does not parse relatedImages pull specs; mirroring and OLM fail on them",
  },
  "GP-01": {
    sdk: "ok",
    why: "operator-sdk flags a missing deployments list, not an empty one; both install nothing",
  },
  "GP-04": { sdk: "ok", why: "operator-sdk does not read the channels of a bundle directory" },
  "V1-01": { sdk: "ok", why: "operator-sdk has no OLM v1 validator" },
  "V1-02": { sdk: "ok", why: "operator-sdk has no OLM v1 validator" },
  "V1-03": { sdk: "ok", why: "operator-sdk has no OLM v1 validator" },
  "V1-04": {
    sdk: "warning",
    why: "operator-sdk has no OLM v1 validator; its one added finding is the missing example (tsop's CSV-08)",
  },
  "V1-05": { sdk: "ok", why: "operator-sdk has no OLM v1 validator" },
  "V1-06": { sdk: "ok", why: "operator-sdk has no OLM v1 validator" },
  "V1-07": { sdk: "ok", why: "operator-sdk has no OLM v1 validator" },
};

/** Cases whose finding the unbroken sample already has: judged against operator-sdk's default suite. */
const IN_SAMPLE = new Set(["OH-05", "GP-04"]);

/** operator-sdk's arguments for a case; a suite operator-sdk lacks (olm-v1) runs its default suite. */
function sdkArgs(c: Case): string[] {
  const args: string[] = [];
  for (const suite of c.optional ?? []) {
    const selector = SDK_SELECTORS[suite];
    if (selector) args.push("--select-optional", selector);
  }
  if (c.k8sVersion) args.push("--optional-values", `k8s-version=${c.k8sVersion}`);
  return args;
}

const worst = (levels: string[]): Verdict =>
  levels.includes("error") ? "error" : levels.includes("warning") ? "warning" : "ok";

/** operator-sdk's findings on the unbroken bundle, per argument list. */
const baselines = new Map<string, Promise<SdkVerdict>>();
function baseline(args: string[]): Promise<SdkVerdict> {
  const key = args.join(" ");
  if (!baselines.has(key))
    baselines.set(
      key,
      validBundle().then((b) => sdkValidate(b.dir, args)),
    );
  return baselines.get(key)!;
}

/**
 * The findings operator-sdk reports beyond its baseline, with their level. The baseline runs the
 * same suites without --optional-values (a bad k8s-version is itself the breakage), or the default
 * suite alone when the sample bundle already holds the case's finding.
 */
async function sdkVerdict(c: Case, dir: string, args: string[]) {
  const baseArgs = IN_SAMPLE.has(c.id)
    ? []
    : args.filter((a, i) => a !== "--optional-values" && args[i - 1] !== "--optional-values");
  // One after the other: the baseline's bundle must outlive its run (temp dirs go with the test).
  const base = await baseline(baseArgs);
  const broken = await sdkValidate(dir, args);
  const added = [
    ...broken.errors.filter((m) => !base.errors.includes(m)).map((m) => ["error", m] as const),
    ...broken.warnings.filter((m) => !base.warnings.includes(m)).map((m) => ["warning", m] as const),
  ];
  return { verdict: worst(added.map(([level]) => level)), added, output: broken.output };
}

describe("bundle validate: tsop's verdict equals operator-sdk's on the broken-bundle corpus", () => {
  for (const c of CASES) {
    const args = sdkArgs(c);
    test(`${c.id}: ${c.what}`, { timeout: 60_000 }, async () => {
      const b = await validBundle();
      await c.breakIt(b);
      const report = await validateBundleDir(b.dir, {
        ...(c.optional ? { selectOptional: c.optional } : {}),
        ...(c.k8sVersion ? { k8sVersion: c.k8sVersion } : {}),
      });
      const ours = worst(report.findings.filter((f) => f.id === c.id).map((f) => f.level));
      const theirs = await sdkVerdict(c, b.dir, args);
      const why = JSON.stringify({ tsop: report.findings, operatorSdk: theirs.added }, null, 1);
      const difference = DIFFERENCES[c.id];
      if (difference) {
        expect(theirs.verdict, `${c.id} is listed as a difference: ${why}`).toBe(difference.sdk);
        expect(ours, `${c.id} is listed as a difference but both agree`).not.toBe(difference.sdk);
      } else expect(theirs.verdict, why).toBe(ours);
    });
  }
});
