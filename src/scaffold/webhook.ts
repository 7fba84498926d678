// `tsop create webhook`: for a kind already in PROJECT, one plan: the handler class beside the kind
// (templates/webhook/src), a conversion class for --conversion, a test, config/webhook and
// config/certmanager, the deploy wiring (config/default resources, the manager patch and the
// certificate replacements; config/manifests drops the certificate volume for OLM; config/crd the
// conversion patch), src/main.ts wiring and the PROJECT entry. Rendered in memory, written atomically.
import { AggregateTsopError, ExitCode, UsageError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import {
  checkGroup,
  checkKind,
  checkVersion,
  fullGroup,
  PROJECT_FILE,
  type ProjectResource,
  readProject,
  updateResourceInProject,
} from "../project/index.js";
import type { ProjectWebhooks } from "../project/types.js";
import { DEFAULT_WORKLOAD_IMAGE, MAIN_MARKERS } from "./api.js";
import { licenseHeader } from "./header.js";
import { executePlan, type FileAction, type FileResult } from "./machinery.js";
import { messages } from "./messages.js";
import {
  addReplacementTargets,
  appendObjectsToYamlList,
  appendToYamlList,
  ensureVolumeLists,
} from "./yaml-edit.js";

export interface CreateWebhookOptions {
  /** Any directory inside the project. */
  cwd: string;
  group: string;
  version: string;
  kind: string;
  defaulting?: boolean;
  programmaticValidation?: boolean;
  conversion?: boolean;
  /** Overwrite scaffolded files that exist (each one reported), also for webhooks already in PROJECT. */
  force?: boolean;
}

export interface CreateWebhookResult {
  root: string;
  resource: ProjectResource;
  files: FileResult[];
}

/** The paths and names kubebuilder gives a kind's webhooks (operator-sdk bundles carry them). */
export function webhookNames(group: string, version: string, kind: string) {
  const lower = kind.toLowerCase();
  const slug = `${group.replace(/\./g, "-")}-${version}-${lower}`;
  return {
    mutatePath: `/mutate-${slug}`,
    validatePath: `/validate-${slug}`,
    mutateName: `m${lower}-${version}.kb.io`,
    validateName: `v${lower}-${version}.kb.io`,
  };
}

const certificateSource = (fieldPath: string) => ({
  kind: "Certificate",
  group: "cert-manager.io",
  version: "v1",
  name: "serving-cert",
  fieldPath,
});

const serviceSource = (fieldPath: string) => ({
  kind: "Service",
  version: "v1",
  name: "webhook-service",
  fieldPath,
});

/** A replacement target writing one part of a delimited value. */
function target(select: object, fieldPaths: string[], delimiter: string, index: number) {
  return { select, fieldPaths, options: { delimiter, index, create: true } };
}

function validate(options: CreateWebhookOptions, domain: string): string[] {
  const problems = [
    checkGroup(options.group, domain),
    checkVersion(options.version),
    checkKind(options.kind),
  ].filter((p): p is string => p !== undefined);
  if (!options.defaulting && !options.programmaticValidation && !options.conversion)
    problems.push(messages.noWebhookKind);
  return problems;
}

export async function createWebhook(
  options: CreateWebhookOptions,
  reporter: Reporter,
): Promise<CreateWebhookResult> {
  const project = await readProject(options.cwd);
  const problems = validate(options, project.domain);
  if (problems.length > 0) {
    throw new AggregateTsopError(messages.invalidOptions, problems, {
      hint: messages.invalidOptionsHint,
      exitCode: ExitCode.usage,
    });
  }
  const group = fullGroup(options.group, project.domain);
  const gvk = `${options.kind} (${group}/${options.version})`;
  const existing = project.resources.find(
    (r) => r.group === options.group && r.version === options.version && r.kind === options.kind,
  );
  if (!existing?.api || !existing.path)
    throw new UsageError(messages.noApiForWebhook(gvk), { hint: messages.noApiForWebhookHint(options) });
  const spokes = project.resources
    .filter(
      (r) => r.group === options.group && r.kind === options.kind && r.version !== options.version && r.api,
    )
    .map((r) => r.version)
    .sort();
  if (options.conversion && spokes.length === 0)
    throw new UsageError(messages.conversionNeedsVersions(gvk), {
      hint: messages.conversionNeedsVersionsHint(options),
    });
  const already = existing.webhooks;
  const repeated =
    already &&
    ((options.defaulting && already.defaulting) ||
      (options.programmaticValidation && already.validation) ||
      (options.conversion && already.conversion));
  if (repeated && !options.force)
    throw new UsageError(messages.duplicateWebhook(gvk), { hint: messages.duplicateWebhookHint });

  const webhooks: ProjectWebhooks = { ...already, webhookVersion: "v1" };
  if (options.defaulting) webhooks.defaulting = true;
  if (options.programmaticValidation) webhooks.validation = true;
  if (options.conversion) {
    webhooks.conversion = true;
    webhooks.spoke = spokes;
  }
  const resource: ProjectResource = { ...existing, webhooks };
  const data = templateData(options, project, existing, webhooks, spokes);
  const actions = planActions(data, webhooks, existing);
  actions.push({
    kind: "edit",
    path: PROJECT_FILE,
    edit: (text, file) => updateResourceInProject(text, file, resource),
    ifMissing: "error",
  });
  const { files } = await executePlan(actions, { root: project.root, data, force: options.force ?? false });
  for (const file of files) {
    if (file.status === "overwritten") reporter.warn(`overwrote ${file.path} (--force)`);
  }
  reporter.success(`created webhooks for ${gvk} in ${project.root}; run \`tsop generate\` next`);
  if (project.legacyKeys) reporter.info(messages.projectMigrated(project.legacyKeys));
  return { root: project.root, resource, files };
}

type Data = ReturnType<typeof templateData>;

function templateData(
  options: CreateWebhookOptions,
  project: Awaited<ReturnType<typeof readProject>>,
  existing: ProjectResource,
  webhooks: ProjectWebhooks,
  spokes: string[],
) {
  const group = fullGroup(options.group, project.domain);
  const kindFile = options.kind.toLowerCase();
  const camel = options.kind[0]!.toLowerCase() + options.kind.slice(1);
  return {
    projectName: project.projectName,
    group,
    version: options.version,
    kind: options.kind,
    kindFile,
    plural: existing.plural,
    namespaced: existing.api?.namespaced ?? true,
    camelKind: /^(default|delete|new|class|function|this|in|of)$/.test(camel) ? `${camel}Object` : camel,
    defaulting: webhooks.defaulting === true,
    validation: webhooks.validation === true,
    conversion: webhooks.conversion === true,
    hasAdmission: webhooks.defaulting === true || webhooks.validation === true,
    spokes: spokes.map((version) => ({ version, upper: version[0]!.toUpperCase() + version.slice(1) })),
    webhookClass: `${options.kind}Webhook`,
    defaultImage: DEFAULT_WORKLOAD_IMAGE,
    apiImportFromTest: `../src/api/${options.version}/${kindFile}.js`,
    webhookImportFromTest: `../src/api/${options.version}/${kindFile}.webhook.js`,
    conversionImportFromTest: `../src/api/${options.version}/${kindFile}.conversion.js`,
    header: licenseHeader(project.license, project.owner ?? `The ${project.projectName} Authors`),
    ...webhookNames(group, options.version, options.kind),
  };
}

function planActions(data: Data, webhooks: ProjectWebhooks, existing: ProjectResource): FileAction[] {
  const collide = "error" as const;
  const dir = `src/api/${data.version}`;
  const actions: FileAction[] = [];
  const template = (path: string, name: string, ifExists: "error" | "skip" = collide) =>
    actions.push({ kind: "template", path, template: `webhook/${name}`, ifExists });
  const imports: string[] = [];
  const wiring: string[] = [];
  if (data.hasAdmission) {
    template(`${dir}/${data.kindFile}.webhook.ts`, "src/api/kind.webhook.ts.hbs");
    imports.push(`import { ${data.webhookClass} } from "./api/${data.version}/${data.kindFile}.webhook.js";`);
    wiring.push(`manager.addWebhook(new ${data.webhookClass}());`);
  }
  if (data.conversion) {
    template(`${dir}/${data.kindFile}.conversion.ts`, "src/api/kind.conversion.ts.hbs");
    imports.push(
      `import { ${data.kind}Conversion } from "./api/${data.version}/${data.kindFile}.conversion.js";`,
    );
    wiring.push(`manager.addWebhook(new ${data.kind}Conversion());`);
    template(
      `config/crd/patches/webhook_in_${data.plural}.yaml`,
      "config/crd/patches/webhook_in_kind.yaml.hbs",
    );
    actions.push({
      kind: "edit",
      path: "config/crd/kustomization.yaml",
      edit: (text, file) =>
        appendObjectsToYamlList(text, file, "patches", [{ path: `patches/webhook_in_${data.plural}.yaml` }]),
      ifMissing: "error",
    });
    // kustomize renames the conversion Service only with this configuration (as kubebuilder's).
    template("config/crd/kustomizeconfig.yaml", "config/crd/kustomizeconfig.yaml.hbs", "skip");
    actions.push({
      kind: "edit",
      path: "config/crd/kustomization.yaml",
      edit: (text, file) => appendToYamlList(text, file, "configurations", "kustomizeconfig.yaml"),
      ifMissing: "error",
    });
  }
  template(`test/${data.kindFile}.webhook.test.ts`, "test/kind.webhook.test.ts.hbs");
  actions.push({
    kind: "insert",
    path: "src/main.ts",
    marker: MAIN_MARKERS.imports,
    fragments: imports,
    ifMissing: "error",
  });
  actions.push({
    kind: "insert",
    path: "src/main.ts",
    marker: MAIN_MARKERS.controllers,
    fragments: wiring,
    ifMissing: "error",
  });
  // Shared by every kind's webhooks: written once, kept as the user left them afterwards.
  for (const name of ["kustomization.yaml", "kustomizeconfig.yaml", "service.yaml"])
    template(`config/webhook/${name}`, `config/webhook/${name}.hbs`, "skip");
  for (const name of [
    "kustomization.yaml",
    "kustomizeconfig.yaml",
    "issuer.yaml",
    "certificate-webhook.yaml",
  ])
    template(`config/certmanager/${name}`, `config/certmanager/${name}.hbs`, "skip");
  template(
    "config/default/manager_webhook_patch.yaml",
    "config/default/manager_webhook_patch.yaml.hbs",
    "skip",
  );
  actions.push({
    kind: "edit",
    path: "config/manager/manager.yaml",
    edit: (text, file) => ensureVolumeLists(text, file, "manager"),
    ifMissing: "error",
  });
  actions.push(...deployEdits(data, webhooks, existing), olmEdit());
  return actions;
}

/** config/default: the webhook and cert-manager resources, the manager patch, the CA injection. */
function deployEdits(data: Data, webhooks: ProjectWebhooks, existing: ProjectResource): FileAction[] {
  const file = "config/default/kustomization.yaml";
  const certificate = { kind: "Certificate", group: "cert-manager.io", version: "v1", name: "serving-cert" };
  const caTargets = (index: number) => {
    const out: object[] = [];
    const annotation = [".metadata.annotations.[cert-manager.io/inject-ca-from]"];
    if (webhooks.defaulting)
      out.push(target({ kind: "MutatingWebhookConfiguration" }, annotation, "/", index));
    if (webhooks.validation)
      out.push(target({ kind: "ValidatingWebhookConfiguration" }, annotation, "/", index));
    if (webhooks.conversion)
      out.push(
        target(
          { kind: "CustomResourceDefinition", name: `${existing.plural}.${data.group}` },
          annotation,
          "/",
          index,
        ),
      );
    return out;
  };
  const dnsNames = [".spec.dnsNames.0", ".spec.dnsNames.1"];
  const edits: Array<(text: string, path: string) => string> = [
    (text, path) => appendToYamlList(text, path, "resources", "../webhook"),
    (text, path) => appendToYamlList(text, path, "resources", "../certmanager"),
    (text, path) =>
      appendObjectsToYamlList(text, path, "patches", [
        { path: "manager_webhook_patch.yaml", target: { kind: "Deployment" } },
      ]),
    (text, path) =>
      addReplacementTargets(text, path, serviceSource(".metadata.name"), [
        target(certificate, dnsNames, ".", 0),
      ]),
    (text, path) =>
      addReplacementTargets(text, path, serviceSource(".metadata.namespace"), [
        target(certificate, dnsNames, ".", 1),
      ]),
    (text, path) => addReplacementTargets(text, path, certificateSource(".metadata.namespace"), caTargets(0)),
    (text, path) => addReplacementTargets(text, path, certificateSource(".metadata.name"), caTargets(1)),
  ];
  return edits.map((edit) => ({ kind: "edit" as const, path: file, edit, ifMissing: "error" as const }));
}

/** config/manifests: OLM mounts its own webhook certificate, so the bundle drops the cert-manager one. */
function olmEdit(): FileAction {
  const patch = [
    "# OLM mounts its own webhook certificate: drop the cert-manager Secret's mount and volume,",
    "# which config/default/manager_webhook_patch.yaml puts first in their lists.",
    "- op: remove",
    "  path: /spec/template/spec/containers/0/volumeMounts/0",
    "- op: remove",
    "  path: /spec/template/spec/volumes/0",
  ].join("\n");
  return {
    kind: "edit",
    path: "config/manifests/kustomization.yaml",
    edit: (text, file) =>
      appendObjectsToYamlList(text, file, "patches", [
        { target: { group: "apps", version: "v1", kind: "Deployment", name: "controller-manager" }, patch },
      ]),
    ifMissing: "error",
  };
}
