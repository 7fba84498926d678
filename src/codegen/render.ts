// The analysis half of `tsop generate`: one program and its diagnostics, then the files it renders
// (CRDs, role.yaml, the webhooks' manifests.yaml) in memory. Nothing here writes to the disk; the
// result is plain data (AnalysisOutput), which the generate cache stores as it is.
import { statSync } from "node:fs";
import { join } from "node:path";
import type TS from "typescript";
import { ts } from "./compiler.js";
import type { Reporter } from "../common/reporter.js";
import { type InputRecorder, readTextLikeTypeScript } from "./cache/inputs.js";
import type { AnalysisOutput, Note } from "./cache/store.js";
import { tsopVersion } from "../common/version.js";
import { classesOf, collectResources, type ResourceVersion } from "./crd/collect.js";
import { assembleCrds } from "./crd/assemble.js";
import { SchemaBuilder } from "./crd/schema.js";
import { SchemaReuse } from "./crd/schema-reuse.js";
import { Diagnostics } from "./diagnostics.js";
import { msg } from "./messages.js";
import type { RenderedFile } from "./output/write.js";
import { type YamlWriter, yamlWriter } from "./output/yaml-writer.js";
import { loadProgram, type LoadedProgram } from "./program.js";
import { collectRbac, type RbacDeclaration } from "./rbac/collect.js";
import { deriveClientCalls, deriveRbac, grants, type KindRef } from "./rbac/derive.js";
import { runtimeRbacNeeds, shardingNeed } from "./rbac/runtime-needs.js";
import { MANAGER_MANIFEST, managerShards } from "./rbac/sharding-flag.js";
import {
  type BindingPlan,
  planBindings,
  readConfigBindings,
  type TreeReader,
} from "./rbac/config-bindings.js";
import { bucketRules, type RoleBucket, roleObjects } from "./rbac/normalize.js";
import { checkSources } from "./source-checks.js";
import { collectWebhooks, webhookConfigurations } from "./webhook/collect.js";

/** Where each kind of output goes, resolved against the working directory. */
export interface OutputDirs {
  crd: string;
  rbac: string;
  webhook: string;
}

export interface RenderOptions {
  what: "all" | "crds" | "rbac";
  dirs: OutputDirs;
  roleName: string;
  maxDescLen?: number;
  deriveRbac?: boolean;
  /** The directory of the PROJECT file (config/manager is read from it); default: the cwd. */
  projectRoot?: string;
}

export interface Analysis {
  loaded: LoadedProgram;
  diags: Diagnostics;
  resources: ResourceVersion[];
}

/** What rendering tells the user besides diagnostics (recorded, so a cache hit can say it again). */
type NoteSink = Pick<Reporter, "info" | "warn" | "debug">;

/**
 * Analyses the project and renders every file `options.what` asks for; with `inputs`, records what
 * the analysis read. `previous`, the last output for the same options, lends the texts and schemas
 * of what has not changed. Synchronous from start to end: one analysis at a time (see program.ts).
 */
export function analyseAndRender(
  tsconfig: string,
  cwd: string,
  options: RenderOptions,
  inputs?: InputRecorder,
  previous?: AnalysisOutput,
): AnalysisOutput {
  const notes: Note[] = [];
  const sink: NoteSink = {
    info: (message) => notes.push({ level: "info", message }),
    warn: (message) => notes.push({ level: "warn", message }),
    debug: (message) => notes.push({ level: "debug", message }),
  };
  const analysis = analyse(tsconfig, cwd, inputs);
  const reuse = new SchemaReuse(analysis.loaded, previous?.diagnostics.length === 0 ? previous.schemas : []);
  const files = renderFiles(analysis, options, sink, {
    yaml: yamlWriter(previous?.files),
    reader: recordingReader(inputs),
    reuse,
  });
  return { files, diagnostics: analysis.diags.sorted(), notes, schemas: reuse.records() };
}

/** Loads the program, reports syntax and source errors, and collects the custom resource classes. */
function analyse(tsconfig: string, cwd: string, inputs: InputRecorder | undefined): Analysis {
  const loaded = loadProgram(tsconfig, inputs);
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
  const resources = collectResources(classesOf(loaded.sourceFiles), loaded.checker, diags);
  return { loaded, diags, resources };
}

/** What rendering reads besides the analysis: earlier texts and schemas, and the config tree. */
interface RenderInputs {
  yaml: YamlWriter;
  reader: TreeReader;
  reuse: SchemaReuse;
}

/** Every file `what` asks for, rendered in memory. */
function renderFiles(
  analysis: Analysis,
  options: RenderOptions,
  reporter: NoteSink,
  { yaml, reader, reuse }: RenderInputs,
): RenderedFile[] {
  return [
    ...(options.what !== "rbac" ? renderCrds(analysis, options, yaml, reuse) : []),
    ...(options.what !== "crds" ? renderRole(analysis, options, reporter, yaml, reader) : []),
    ...(options.what === "all" ? renderWebhooks(analysis, options, yaml) : []),
  ];
}

function renderCrds(
  { loaded, diags, resources }: Analysis,
  options: RenderOptions,
  yaml: YamlWriter,
  reuse: SchemaReuse,
): RenderedFile[] {
  const builder = new SchemaBuilder(loaded.checker, diags);
  const crds = assembleCrds(resources, { builder, reuse }, diags, {
    toolVersion: tsopVersion(),
    ...(options.maxDescLen === undefined ? {} : { maxDescLen: options.maxDescLen }),
  });
  return crds.map((crd) => ({
    path: join(options.dirs.crd, crd.fileName),
    ...yaml([crd.object]),
  }));
}

function renderRole(
  analysis: Analysis,
  options: RenderOptions,
  reporter: NoteSink,
  yaml: YamlWriter,
  reader: TreeReader,
): RenderedFile[] {
  const { loaded, diags, resources } = analysis;
  const declarations = collectRbac(loaded.sourceFiles, loaded.checker, diags, options.roleName);
  const byClass = new Map(resources.map((r) => [r.cls, { group: r.group, plural: r.plural }]));
  const needs = derivedNeeds(analysis, (c) => byClass.get(c), options);
  addRuntimeNeeds(analysis, declarations, reporter, options, (c) => byClass.get(c), reader);
  if (options.deriveRbac) {
    for (const need of needs) {
      reporter.debug(
        `derived RBAC: ${need.group || '""'} ${need.resource} [${need.verbs.join(" ")}] (${need.site})`,
      );
      declarations.push(ruleOf(need, options.roleName));
    }
  } else {
    for (const warning of uncoveredNeeds(needs, declarations)) reporter.warn(warning);
  }
  const buckets = bucketRules(declarations);
  const path = join(options.dirs.rbac, "role.yaml");
  const plan = bindingPlan(buckets, options.dirs.rbac, path, diags, reader);
  for (const c of plan?.conflicts ?? []) diags.general(c.file, c.message);
  for (const note of plan?.notes ?? []) reporter.info(note);
  const objects = roleObjects(buckets, plan?.provided);
  if (objects.length) return [{ path, ...yaml(objects) }];
  reporter.warn("no @Rbac declarations found: role.yaml was not written");
  return [];
}

/**
 * The runtime's own needs (rbac/runtime-needs.ts: CRDs for optional kinds, Namespaces for
 * cache.namespaceSelector) go into role.yaml always, once each: without them the manager cannot
 * do what the code asked of it.
 */
function addRuntimeNeeds(
  { loaded, diags }: Analysis,
  declarations: RbacDeclaration[],
  reporter: NoteSink,
  { roleName, projectRoot }: RenderOptions,
  kindOfClass: (cls: TS.ClassDeclaration) => KindRef | undefined,
  reader: TreeReader,
): void {
  const added = new Set<string>();
  const needs = runtimeRbacNeeds(loaded.sourceFiles, loaded.checker, roleName);
  // --sharding in config/manager: the shard Leases live in the leader election namespace, which
  // in the cluster is the manager's own ("system" before config/default's namespace).
  if (!needs.some((n) => n.patchesWiredKinds) && managerShards(projectRoot ?? diags.root, reader))
    needs.push(shardingNeed(`${MANAGER_MANIFEST} (--sharding)`, roleName, "system"));
  const sharding = needs.find((n) => n.patchesWiredKinds);
  if (sharding)
    // The controllers' primary and owned kinds (the wiring's rules with patch): their shard labels.
    deriveRbac(
      loaded.sourceFiles,
      loaded.checker,
      new Diagnostics(diags.root),
      kindOfClass,
      roleName,
      (rule) => {
        if (rule.verbs.includes("patch") && !rule.resources[0]!.includes("/"))
          needs.push({
            rule: { ...rule, verbs: ["patch"] },
            node: sharding.node,
            why: `sharding (the sharder labels the objects of the controllers' primary and owned kinds)`,
          });
      },
    );
  for (const need of needs) {
    const key = `${need.rule.namespace}/${need.rule.groups[0]}/${need.rule.resources[0]}/${need.rule.verbs.join(",")}`;
    if (added.has(key)) continue;
    added.add(key);
    // A ClusterRole's rule grants in every namespace, a Role's only in its own.
    const inScope = declarations.filter((d) => d.namespace === "" || d.namespace === need.rule.namespace);
    const granted = need.rule.verbs.every((verb) =>
      grants(inScope, { group: need.rule.groups[0]!, resource: need.rule.resources[0]!, verb }),
    );
    if (granted) continue;
    declarations.push(need.rule);
    reporter.info(
      `role.yaml grants ${need.rule.verbs.join(", ")} on ${need.rule.resources[0]} (API group "${need.rule.groups[0]}")${need.rule.namespace ? ` in namespace ${need.rule.namespace}` : ""}: ${typeof need.node === "string" ? need.node : diags.locate(need.node)} uses ${need.why}`,
    );
  }
}

/** A rule the code implies: where, the call, and the group, resource and verbs it needs. */
interface DerivedNeed {
  site: string;
  call: string;
  group: string;
  resource: string;
  verbs: string[];
}

/**
 * What the controllers' wiring (--derive-rbac's rules) and the calls on tsop's Client need. The
 * wiring's unknown kinds are diagnosed only with --derive-rbac, which would otherwise miss them.
 */
function derivedNeeds(
  { loaded, diags }: Analysis,
  kindOfClass: (cls: TS.ClassDeclaration) => KindRef | undefined,
  options: RenderOptions,
): DerivedNeed[] {
  const needs: DerivedNeed[] = [];
  const quiet = new Diagnostics(diags.root);
  const shorten = (text: string) => {
    const flat = text.replace(/\s+/g, " ");
    return flat.length > 60 ? `${flat.slice(0, 57)}…` : flat;
  };
  deriveRbac(
    loaded.sourceFiles,
    loaded.checker,
    options.deriveRbac ? diags : quiet,
    kindOfClass,
    options.roleName,
    (rule, call) =>
      needs.push({
        site: diags.locate(call),
        call: shorten(call.getText()),
        group: rule.groups[0] ?? "",
        resource: rule.resources[0] ?? "",
        verbs: rule.verbs,
      }),
  );
  for (const c of deriveClientCalls(loaded.sourceFiles, loaded.checker, kindOfClass, (n) =>
    diags.locate(n),
  )) {
    needs.push({ site: c.site, call: c.call, group: c.group, resource: c.resource, verbs: [c.verb] });
  }
  return needs;
}

function ruleOf(need: DerivedNeed, roleName: string): RbacDeclaration {
  return {
    groups: [need.group],
    resources: [need.resource],
    resourceNames: [],
    verbs: need.verbs,
    urls: [],
    namespace: "",
    roleName,
  };
}

/** One warning per call whose needs the declared @Rbac rules do not grant, naming the rule to add. */
function uncoveredNeeds(needs: readonly DerivedNeed[], declared: readonly RbacDeclaration[]): string[] {
  const warnings: string[] = [];
  for (const need of needs) {
    const missing = need.verbs.filter((verb) => !grants(declared, { ...need, verb }));
    if (!missing.length) continue;
    const list = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(", ")}]`;
    warnings.push(
      `${need.site}: ${need.call} needs ${missing.join(", ")} on ${need.resource} (API group "${need.group}"), which no @Rbac grants: ` +
        `add @Rbac({ groups: ${list([need.group])}, resources: ${list([need.resource])}, verbs: ${list(missing)} }) to a controller ` +
        "(or pass --derive-rbac to add the derived rules to role.yaml)",
    );
  }
  return warnings;
}

/** Only namespaced Roles get a RoleBinding: only then is the config tree read for the user's own. */
function bindingPlan(
  buckets: RoleBucket[],
  rbacDir: string,
  roleYaml: string,
  diags: Diagnostics,
  reader: TreeReader,
): BindingPlan | undefined {
  if (!buckets.some((b) => b.namespace !== "")) return undefined;
  const found = readConfigBindings(rbacDir, roleYaml, diags.root, reader);
  return planBindings(buckets, found, diags.shown(roleYaml));
}

/** Like controller-gen, manifests.yaml exists only when some handler declares a webhook. */
function renderWebhooks(
  { loaded, diags }: Analysis,
  options: RenderOptions,
  yaml: YamlWriter,
): RenderedFile[] {
  const configs = webhookConfigurations(collectWebhooks(loaded.sourceFiles, loaded.checker, diags));
  if (!configs.length) return [];
  return [{ path: join(options.dirs.webhook, "manifests.yaml"), ...yaml(configs) }];
}

/** Reads config files for the render, recording each answer so the generate cache notices edits. */
function recordingReader(inputs: InputRecorder | undefined): TreeReader {
  return {
    text(path) {
      const text = readTextLikeTypeScript(path);
      inputs?.readFile(path, text);
      return text;
    },
    isDirectory(path) {
      const isDir = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
      inputs?.directoryExists(path, isDir);
      return isDir;
    },
  };
}
