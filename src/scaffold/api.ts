// `tsop create api`: validate the group/version/kind against the naming rules and PROJECT, then
// one plan: new files from templates/api/**, marker insertions into src/main.ts, list edits of
// the config kustomizations and a PROJECT entry (yaml Document API, comments kept). Rendered in
// memory, written atomically.
import { AggregateTsopError, ExitCode, UsageError } from "../common/errors.js";
import { defaultPlural } from "../common/plural.js";
import type { Reporter } from "../common/reporter.js";
import {
  addResourceToProject,
  checkGroup,
  checkKind,
  checkPlural,
  checkVersion,
  fullGroup,
  PROJECT_FILE,
  type Project,
  type ProjectResource,
  readProject,
  updateResourceInProject,
} from "../project/index.js";
import { addDeploymentEnv, appendToYamlList } from "./yaml-edit.js";
import { licenseHeader } from "./header.js";
import { type FileAction, type FileResult, executePlan } from "./machinery.js";
import { messages } from "./messages.js";

export interface CreateApiOptions {
  /** Any directory inside the project. */
  cwd: string;
  group: string;
  version: string;
  kind: string;
  plural?: string;
  /** Default true; false makes a cluster-scoped kind. */
  namespaced?: boolean;
  /** Scaffold the API type (default true). */
  resource?: boolean;
  /** Scaffold the controller (default true). */
  controller?: boolean;
  /** Overwrite scaffolded files that exist (each one reported), and re-scaffold a kind already in PROJECT. */
  force?: boolean;
}

export interface CreateApiResult {
  root: string;
  resource: ProjectResource;
  files: FileResult[];
}

/** The workload a scaffolded controller runs until the user picks one: listens on 8080 as non-root. */
export const DEFAULT_WORKLOAD_IMAGE = "docker.io/nginxinc/nginx-unprivileged:1.27-alpine";

/** Markers in src/main.ts, shared by the init template that writes them and the inserts here. */
export const MAIN_MARKERS = { imports: "imports", controllers: "controllers" } as const;

function sameKind(a: ProjectResource, b: { group: string; version: string; kind: string }): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

/** Names the scaffolded files import or declare next to the kind's class; a kind cannot reuse them. */
const TAKEN_NAMES = new Set([
  "Condition",
  "ControllerBuilder",
  "CustomResource",
  "Deployment",
  "Int32",
  "KubeObject",
  "Manager",
  "PodSpec",
  "PrinterColumn",
  "Rbac",
  "ReconcileContext",
  "Reconciler",
  "Request",
  "Result",
  "Status",
  "TestCluster",
  // Globals the scaffolded code uses; a class of the same name would shadow them.
  "Array",
  "Awaited",
  "Error",
  "Object",
  "Promise",
  "Record",
  "ReturnType",
  "URL",
  "NAMESPACE",
]);

/** A local variable name for an object of the kind that is never a reserved word. */
function variableName(kind: string): string {
  const name = kind[0]!.toLowerCase() + kind.slice(1);
  return /^(break|case|catch|class|const|continue|debugger|default|delete|do|else|enum|export|extends|false|finally|for|function|if|implements|import|in|instanceof|interface|let|new|null|package|private|protected|public|return|static|super|switch|this|throw|true|try|typeof|var|void|while|with|yield|await|arguments|eval|desired|deployment|request|ctx|result|latest)$/.test(
    name,
  )
    ? `${name}Object`
    : name;
}

function validate(options: CreateApiOptions, project: Project, plural: string): string[] {
  const problems = [
    checkGroup(options.group, project.domain),
    checkVersion(options.version),
    checkKind(options.kind),
    checkPlural(plural),
  ].filter((p): p is string => p !== undefined);
  if (["", "Spec", "Status", "Reconciler"].some((suffix) => TAKEN_NAMES.has(options.kind + suffix))) {
    problems.push(messages.kindClashes(options.kind));
  }
  if (options.resource === false && options.controller === false) problems.push(messages.nothingToCreate);
  const clash = project.resources.find(
    (r) => r.group === options.group && r.plural === plural && r.kind !== options.kind,
  );
  if (clash) {
    problems.push(messages.pluralTaken(plural, clash.kind, options.group));
  }
  return problems;
}

type ApiData = ReturnType<typeof templateData>;

/** The PROJECT entry: the kind with what this run adds and what it already had. */
function resourceEntry(
  options: CreateApiOptions,
  project: Project,
  plural: string,
  existing: ProjectResource | undefined,
  apiPath: string,
): ProjectResource {
  const withResource = options.resource !== false;
  const withController = options.controller !== false;
  const resource: ProjectResource = {
    group: options.group,
    domain: project.domain,
    version: options.version,
    kind: options.kind,
    plural,
    controller: withController || (existing?.controller ?? false),
  };
  if (withResource) {
    resource.api = { crdVersion: "v1", namespaced: options.namespaced !== false };
    resource.path = apiPath;
  } else if (existing?.api) {
    resource.api = existing.api;
    if (existing.path) resource.path = existing.path;
  }

  return resource;
}

/** The values the templates of create api see. */
function templateData(
  options: CreateApiOptions,
  project: Project,
  resource: ProjectResource,
  kindFile: string,
) {
  const plural = resource.plural;
  const group = fullGroup(options.group, project.domain);
  const namespaced = resource.api?.namespaced ?? true;
  return {
    projectName: project.projectName,
    domain: project.domain,
    group,
    shortGroup: options.group,
    version: options.version,
    kind: options.kind,
    kindFile,
    upperKind: options.kind.toUpperCase(),
    camelKind: variableName(options.kind),
    defaultImage: DEFAULT_WORKLOAD_IMAGE,
    plural,
    namespaced,
    scope: namespaced ? "Namespaced" : "Cluster",
    apiImport: `../api/${options.version}/${kindFile}.js`,
    apiImportFromTest: `../src/api/${options.version}/${kindFile}.js`,
    controllerImportFromTest: `../src/controllers/${kindFile}.controller.js`,
    reconcilerClass: `${options.kind}Reconciler`,
    finalizer: `${group}/finalizer`,
    sampleName: `${kindFile}-sample`,
    header: licenseHeader(project.license, project.owner ?? `The ${project.projectName} Authors`),
  };
}

/** Files of the API: the type, a sample, editor/viewer roles, and the kustomization entries. */
function apiActions(options: CreateApiOptions, data: ApiData, apiPath: string): FileAction[] {
  const collide = "error" as const;
  const { kindFile, group, plural } = data;
  const actions: FileAction[] = [];
  actions.push({ kind: "template", path: apiPath, template: "api/src/api/kind.ts.hbs", ifExists: collide });
  const sample = `${options.group}_${options.version}_${kindFile}.yaml`;
  actions.push({
    kind: "template",
    path: `config/samples/${sample}`,
    template: "api/config/samples/sample.yaml.hbs",
    ifExists: collide,
  });
  actions.push({
    kind: "edit",
    path: "config/samples/kustomization.yaml",
    edit: (text, file) => appendToYamlList(text, file, "resources", sample),
    ifMissing: "error",
  });
  for (const role of ["editor", "viewer"]) {
    const file = `${kindFile}_${role}_role.yaml`;
    actions.push({
      kind: "template",
      path: `config/rbac/${file}`,
      template: `api/config/rbac/${role}_role.yaml.hbs`,
      ifExists: collide,
    });
    actions.push({
      kind: "edit",
      path: "config/rbac/kustomization.yaml",
      edit: (text, path) => appendToYamlList(text, path, "resources", file),
      ifMissing: "error",
    });
  }
  actions.push({
    kind: "edit",
    path: "config/crd/kustomization.yaml",
    edit: (text, file) => appendToYamlList(text, file, "resources", `bases/${group}_${plural}.yaml`),
    ifMissing: "error",
  });
  return actions;
}

/** Files of the controller: the reconciler, its test, the manager's env and main.ts wiring. */
function controllerActions(options: CreateApiOptions, data: ApiData): FileAction[] {
  const collide = "error" as const;
  const { kindFile } = data;
  const actions: FileAction[] = [];
  // The workload image as a RELATED_IMAGE_ variable of the manager, so bundles list (and pin) it.
  actions.push({
    kind: "edit",
    path: "config/manager/manager.yaml",
    edit: (text, file) =>
      addDeploymentEnv(text, file, "manager", `RELATED_IMAGE_${data.upperKind}`, DEFAULT_WORKLOAD_IMAGE),
    ifMissing: "skip",
  });
  actions.push({
    kind: "template",
    path: `src/controllers/${kindFile}.controller.ts`,
    template: "api/src/controllers/kind.controller.ts.hbs",
    ifExists: collide,
  });
  actions.push({
    kind: "template",
    path: `test/${kindFile}.controller.test.ts`,
    template: "api/test/kind.controller.test.ts.hbs",
    ifExists: collide,
  });
  // Beside it, the same controller under perturbation (tsop/testing's perturb()).
  actions.push({
    kind: "template",
    path: `test/${kindFile}.perturb.test.ts`,
    template: "api/test/kind.perturb.test.ts.hbs",
    ifExists: collide,
  });
  actions.push({
    kind: "insert",
    path: "src/main.ts",
    marker: MAIN_MARKERS.imports,
    fragments: [
      `import { ${options.kind} } from "./api/${options.version}/${kindFile}.js";`,
      `import { ${data.reconcilerClass} } from "./controllers/${kindFile}.controller.js";`,
    ],
    ifMissing: "error",
  });
  actions.push({
    kind: "insert",
    path: "src/main.ts",
    marker: MAIN_MARKERS.controllers,
    fragments: [controllerRegistration(options.kind, data.reconcilerClass)],
    ifMissing: "error",
  });
  return actions;
}

export async function createApi(options: CreateApiOptions, reporter: Reporter): Promise<CreateApiResult> {
  const project = await readProject(options.cwd);
  const plural = options.plural ?? defaultPlural(options.kind);
  const problems = validate(options, project, plural);
  if (problems.length > 0) {
    throw new AggregateTsopError(messages.invalidOptions, problems, {
      hint: messages.invalidOptionsHint,
      exitCode: ExitCode.usage,
    });
  }
  const withResource = options.resource !== false;
  const withController = options.controller !== false;
  const gvk = `${options.kind} (${fullGroup(options.group, project.domain)}/${options.version})`;
  const existing = project.resources.find((r) => sameKind(r, options));
  // A kind in PROJECT may still get the part it lacks (e.g. a controller added with --resource=false).
  const duplicate = existing && ((withResource && existing.api) || (withController && existing.controller));
  if (duplicate && !options.force) {
    throw new UsageError(messages.duplicateResource(gvk), { hint: messages.duplicateResourceHint });
  }
  const kindFile = options.kind.toLowerCase();
  const apiPath = `src/api/${options.version}/${kindFile}.ts`;
  if (!withResource && !project.resources.some((r) => sameKind(r, options) && r.api)) {
    throw new UsageError(messages.noApiYet(gvk), { hint: messages.noApiYetHint });
  }
  const resource = resourceEntry(options, project, plural, existing, apiPath);
  const data = templateData(options, project, resource, kindFile);
  const actions: FileAction[] = [
    ...(withResource ? apiActions(options, data, apiPath) : []),
    ...(withController ? controllerActions(options, data) : []),
  ];
  actions.push({
    kind: "edit",
    path: PROJECT_FILE,
    edit: (text, file) =>
      existing ? updateResourceInProject(text, file, resource) : addResourceToProject(text, file, resource),
    ifMissing: "error",
  });

  const { files } = await executePlan(actions, { root: project.root, data, force: options.force ?? false });
  for (const file of files) {
    if (file.status === "overwritten") reporter.warn(`overwrote ${file.path} (--force)`);
  }
  reporter.success(`created ${gvk} in ${project.root}`);
  if (project.legacyKeys) reporter.info(messages.projectMigrated(project.legacyKeys));
  return { root: project.root, resource, files };
}

/** The wiring create api adds to src/main.ts; its lines are what the idempotence check compares. */
export function controllerRegistration(kind: string, reconcilerClass: string): string {
  return `await ${reconcilerClass}.setup(manager.controller(${kind}));`;
}
