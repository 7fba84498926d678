// tsop generate: CRDs and RBAC from the project's TypeScript, by static analysis only.
// Pipeline: program.ts (one ts.Program from the tsconfig) → crd/collect.ts (@CustomResource classes)
// → crd/schema.ts (one schema per type, $ref between named types; markers.ts + jsdoc.ts apply tags)
// → crd/flatten.ts (inline refs, cycles, post-checks) → crd/assemble.ts (names, versions, CRD object);
// rbac/collect.ts (@Rbac) [+ rbac/derive.ts] → rbac/normalize.ts (controller-gen's merge); then
// webhook/collect.ts (@MutatingWebhook, @ValidatingWebhook) → config/webhook/manifests.yaml; then
// diagnostics.ts decides (any error: nothing written) and output/ renders YAML, diffs (--check) or
// hands the files to the output sink: the disk as one set (removing CRD files of vanished kinds),
// or stdout for --dry-run.
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { directorySink, type OutputSink } from "../common/output/sink.js";
import type { Reporter } from "../common/reporter.js";
import { tsopVersion } from "../common/version.js";
import { projectDir } from "../project/index.js";
import { classesOf, collectResources } from "./crd/collect.js";
import { assembleCrds } from "./crd/assemble.js";
import { SchemaBuilder } from "./crd/schema.js";
import { CodegenError, type Diagnostic, Diagnostics, formatDiagnostic } from "./diagnostics.js";
import { msg } from "./messages.js";
import { driftOf, type FileStatus, planChanges, planFiles, type RenderedFile } from "./output/write.js";
import { toYamlDocuments } from "./output/yaml.js";
import { loadProgram } from "./program.js";
import { collectRbac } from "./rbac/collect.js";
import { deriveRbac } from "./rbac/derive.js";
import { bucketRules, roleObjects } from "./rbac/normalize.js";
import { checkSources } from "./source-checks.js";
import { collectWebhooks, webhookConfigurations } from "./webhook/collect.js";

export { CodegenError, type Diagnostic, formatDiagnostic } from "./diagnostics.js";
export { markerReference } from "./markers.js";

export interface GenerateOptions {
  cwd: string;
  /** tsconfig path; default <project root>/tsconfig.json. */
  project?: string;
  what?: "all" | "crds" | "rbac";
  crdOut?: string;
  rbacOut?: string;
  /** Where manifests.yaml of the webhooks goes (default config/webhook); written only with "all". */
  webhookOut?: string;
  check?: boolean;
  strict?: boolean;
  maxDescLen?: number;
  deriveRbac?: boolean;
  /** Name of the ClusterRole and default Role name (default manager-role). */
  roleName?: string;
  /** Where the files go (default: the disk, as one set); --dry-run passes stdoutSink. */
  sink?: OutputSink;
}

export interface GenerateResult {
  files: Array<{ path: string; status: FileStatus; bytes?: number }>;
  diagnostics: Diagnostic[];
  /** Unified diff when --check found differences. */
  drift?: string;
}

export const SIZE_LIMIT = 256 * 1024;

export async function generate(options: GenerateOptions, reporter: Reporter): Promise<GenerateResult> {
  const cwd = resolve(options.cwd);
  const root = await projectDir(cwd);
  const what = options.what ?? "all";
  const configPath = options.project ? resolve(cwd, options.project) : join(root, "tsconfig.json");
  const crdDir = resolve(cwd, options.crdOut ?? join(root, "config/crd/bases"));
  const rbacDir = resolve(cwd, options.rbacOut ?? join(root, "config/rbac"));
  const webhookDir = resolve(cwd, options.webhookOut ?? join(root, "config/webhook"));
  const roleName = options.roleName ?? "manager-role";

  const progress = reporter.progress(`analysing ${relative(cwd, configPath) || configPath}`);
  const started = Date.now();
  const loaded = loadProgram(configPath);
  const diags = new Diagnostics(cwd);
  for (const sf of loaded.sourceFiles) {
    // Only the first syntax error of a file: the ones after it are usually its echoes.
    const first = loaded.program.getSyntacticDiagnostics(sf)[0];
    if (first?.start !== undefined) {
      diags.atPosition(
        sf,
        first.start,
        msg.tsSyntax(ts.flattenDiagnosticMessageText(first.messageText, " ")),
      );
    }
  }
  checkSources(loaded.sourceFiles, loaded.checker, diags);
  const classes = classesOf(loaded.sourceFiles);
  const resources = collectResources(classes, loaded.checker, diags);
  const rendered: RenderedFile[] = [];
  if (what !== "rbac") {
    const builder = new SchemaBuilder(loaded.checker, diags);
    const crds = assembleCrds(resources, builder, diags, {
      toolVersion: tsopVersion(),
      ...(options.maxDescLen === undefined ? {} : { maxDescLen: options.maxDescLen }),
    });
    for (const crd of crds)
      rendered.push({ path: join(crdDir, crd.fileName), content: toYamlDocuments([crd.object]) });
  }
  if (what !== "crds") {
    const declarations = collectRbac(loaded.sourceFiles, loaded.checker, diags, roleName);
    if (options.deriveRbac) {
      const byClass = new Map(resources.map((r) => [r.cls, { group: r.group, plural: r.plural }]));
      const derived = deriveRbac(loaded.sourceFiles, loaded.checker, diags, (c) => byClass.get(c), roleName);
      for (const d of derived) {
        reporter.debug(
          `derived RBAC: ${d.groups.map((g) => g || '""').join(",")} ${d.resources.join(",")} [${d.verbs.join(" ")}]`,
        );
      }
      declarations.push(...derived);
    }
    const objects = roleObjects(bucketRules(declarations));
    if (objects.length)
      rendered.push({ path: join(rbacDir, "role.yaml"), content: toYamlDocuments(objects) });
    else reporter.warn("no @Rbac declarations found: role.yaml was not written");
  }
  if (what === "all") {
    // Like controller-gen, manifests.yaml exists only when some handler declares a webhook.
    const configs = webhookConfigurations(collectWebhooks(loaded.sourceFiles, loaded.checker, diags));
    if (configs.length)
      rendered.push({ path: join(webhookDir, "manifests.yaml"), content: toYamlDocuments(configs) });
  }

  const sorted = diags.sorted();
  const failing = sorted.filter((d) => d.severity === "error" || options.strict);
  if (failing.length) {
    progress.fail(`generation failed after ${Date.now() - started} ms`);
    throw new CodegenError(
      options.strict ? sorted.map((d) => ({ ...d, severity: "error" as const })) : sorted,
    );
  }
  for (const d of sorted) reporter.warn(formatDiagnostic(d));

  const plans = await planFiles(rendered, what !== "rbac" ? crdDir : undefined);
  const files = plans.map((p) => ({
    path: relative(cwd, p.path).split("\\").join("/"),
    status: p.status,
    ...(p.content === undefined ? {} : { bytes: Buffer.byteLength(p.content) }),
  }));
  const sizeWarnings: Diagnostic[] = [];
  for (const f of files) {
    if (f.bytes !== undefined && f.bytes > SIZE_LIMIT && f.path.includes(relative(cwd, crdDir))) {
      const m = msg.tooBig(f.path, Math.round(f.bytes / 1024));
      sizeWarnings.push({
        code: m.code,
        severity: "warning",
        file: f.path,
        line: 0,
        column: 0,
        message: m.message,
        ...(m.hint ? { hint: m.hint } : {}),
      });
      reporter.warn(`${m.message}\n      hint: ${m.hint}`);
    }
  }
  const result: GenerateResult = { files, diagnostics: [...sorted, ...sizeWarnings] };
  if (options.check) {
    const drift = driftOf(plans, cwd);
    if (drift)
      progress.warn(
        `${plans.filter((p) => p.status !== "unchanged").length} generated file(s) differ from the sources`,
      );
    else progress.succeed(`generated files are up to date (${files.length} checked)`);
    if (drift) result.drift = drift;
    return result;
  }
  const sink = options.sink ?? directorySink(root);
  await sink.commit(planChanges(plans));
  if (sink.kind !== "directory") {
    progress.succeed(`dry run: generated in ${Date.now() - started} ms, nothing written`);
    return result;
  }
  progress.succeed(`generated in ${Date.now() - started} ms`);
  for (const f of files) {
    const size = f.bytes === undefined ? "" : ` (${(f.bytes / 1024).toFixed(1)} KiB)`;
    if (f.status === "removed") reporter.info(`removed ${f.path} (its kind no longer exists)`);
    else reporter.info(`${f.status} ${f.path}${size}`);
  }
  return result;
}
