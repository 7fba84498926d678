// Bundle validation. Stages: the bundle loader (../load: directory, OCI layout or image) → the checks
// registry.ts lists (one module per family under checks/, stable ids: default suite always, optional
// suites on request) → a sorted report.
import { readFile, stat } from "../../common/fs.js";
import { resolve } from "node:path";
import { InvalidInputError, UsageError } from "../../common/errors.js";
import { type BundleTarget, loadBundle, type LoadOptions } from "../load/index.js";
import type { Finding, LoadedBundle } from "../load/types.js";
import type { CheckContext } from "./check.js";
import { CHECKS, OPTIONAL_SUITES } from "./registry.js";

export { CHECKS, OPTIONAL_SUITES } from "./registry.js";
export type { Check } from "./check.js";

export interface ValidateOptions extends LoadOptions {
  /** Optional suites or operator-sdk selectors (e.g. "operatorhub", "suite=operatorframework"). */
  selectOptional?: string[];
  k8sVersion?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ValidationReport {
  bundle: string;
  passed: boolean;
  errors: number;
  warnings: number;
  suites: string[];
  findings: Finding[];
}

export function resolveSuites(selectors: readonly string[]): string[] {
  const suites = new Set<string>();
  for (const raw of selectors) {
    for (const selector of raw.split(/[,\s]+/).filter(Boolean)) {
      const hit = OPTIONAL_SUITES[selector];
      if (!hit) {
        throw new UsageError(`--select-optional "${selector}" does not match any optional suite`, {
          hint: `choose from: ${Object.keys(OPTIONAL_SUITES).join(", ")}`,
        });
      }
      for (const s of hit) suites.add(s);
    }
  }
  return [...suites].sort();
}

async function customCategories(env: NodeJS.ProcessEnv | undefined): Promise<string[] | undefined> {
  const file = env?.OPERATOR_BUNDLE_CATEGORIES;
  if (!file) return undefined;
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as { categories?: unknown };
    if (Array.isArray(parsed.categories)) return parsed.categories.map(String);
  } catch {
    /* fall through */
  }
  throw new InvalidInputError(
    `OPERATOR_BUNDLE_CATEGORIES=${file} must name a JSON file like {"categories": ["..."]}`,
  );
}

export function runChecks(bundle: LoadedBundle, suites: readonly string[], ctx: CheckContext): Finding[] {
  const enabled = new Set(["default", ...suites]);
  const findings = CHECKS.filter((c) => enabled.has(c.suite)).flatMap((c) => c.run(bundle, ctx));
  const order = new Map(CHECKS.map((c, i) => [c.id, i]));
  return findings.sort(
    (a, b) =>
      (a.level === b.level ? 0 : a.level === "error" ? -1 : 1) ||
      (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0) ||
      (a.file ?? "").localeCompare(b.file ?? "") ||
      (a.path ?? "").localeCompare(b.path ?? ""),
  );
}

/** Validates a bundle directory, OCI layout or image (read by the one bundle loader). */
export async function validateBundle(
  target: BundleTarget,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const suites = resolveSuites(options.selectOptional ?? []);
  const categories = await customCategories(options.env);
  const bundle = await loadBundle(target, options);
  const findings = runChecks(bundle, suites, {
    ...(options.k8sVersion ? { k8sVersion: options.k8sVersion } : {}),
    ...(categories ? { categories } : {}),
  });
  const errors = findings.filter((f) => f.level === "error").length;
  return {
    bundle: bundle.source.name,
    passed: errors === 0,
    errors,
    warnings: findings.length - errors,
    suites,
    findings,
  };
}

/** Validates a bundle directory. A path that does not exist is an error (never an image pull). */
export async function validateBundleDir(
  dir: string,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const isDir = await stat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new InvalidInputError(`bundle directory ${dir} does not exist`, {
      hint: "run `tsop bundle` first, or pass the directory that holds manifests/ and metadata/",
    });
  return { ...(await validateBundle({ dir: resolve(dir) }, options)), bundle: dir };
}

export function formatFinding(f: Finding): string {
  const where = [f.file, f.path].filter(Boolean).join(": ");
  return `${f.level === "error" ? "ERROR" : "WARN "} ${f.id.padEnd(7)} ${where ? `${where}: ` : ""}${f.message}`;
}
