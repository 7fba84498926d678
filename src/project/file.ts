// Parses and validates PROJECT text. Errors name the file and the field, and list every problem.
import { AggregateTsopError, InvalidInputError } from "../common/errors.js";
import { readYamlValue } from "../common/yaml/read-values.js";
import { checkDomain, checkKind, checkPlural, checkProjectName, checkVersion } from "./names.js";
import { legacyKeys, projectLayout, tsopSettings } from "./settings.js";
import type { Project, ProjectResource } from "./types.js";

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalString(raw: Raw, key: string, problems: string[]): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    problems.push(`${key} must be a string`);
    return undefined;
  }
  return value;
}

function parseResource(raw: unknown, index: number, problems: string[]): ProjectResource | undefined {
  const where = `resources[${index}]`;
  if (!isRecord(raw)) {
    problems.push(`${where} must be a mapping`);
    return undefined;
  }
  const fields: Record<string, string> = {};
  for (const key of ["group", "version", "kind"]) {
    const value = raw[key];
    if (typeof value !== "string" || value === "") problems.push(`${where}.${key} is missing`);
    else fields[key] = value;
  }
  if (!fields.group || !fields.version || !fields.kind) return undefined;
  const kindProblem = checkKind(fields.kind);
  if (kindProblem) problems.push(`${where}.kind: ${kindProblem.replace("--kind ", "")}`);
  const versionProblem = checkVersion(fields.version);
  if (versionProblem) problems.push(`${where}.version: ${versionProblem.replace("--version ", "")}`);
  const plural = typeof raw.plural === "string" ? raw.plural : undefined;
  if (plural !== undefined) {
    const pluralProblem = checkPlural(plural);
    if (pluralProblem) problems.push(`${where}.plural: ${pluralProblem.replace("--plural ", "")}`);
  }
  const api = isRecord(raw.api)
    ? { crdVersion: "v1" as const, namespaced: raw.api.namespaced !== false }
    : undefined;
  const resource: ProjectResource = {
    group: fields.group,
    domain: typeof raw.domain === "string" ? raw.domain : "",
    version: fields.version,
    kind: fields.kind,
    plural: plural ?? "",
    controller: raw.controller === true,
  };
  if (api) resource.api = api;
  if (typeof raw.path === "string") resource.path = raw.path;
  if (isRecord(raw.webhooks)) {
    const w = raw.webhooks;
    resource.webhooks = { webhookVersion: "v1" };
    for (const key of ["defaulting", "validation", "conversion"] as const)
      if (w[key] === true) resource.webhooks[key] = true;
    if (Array.isArray(w.spoke)) resource.webhooks.spoke = w.spoke.map(String);
  }
  return resource;
}

export function emptyProjectError(file: string): InvalidInputError {
  return new InvalidInputError(
    "the file is empty; it must be a YAML mapping with domain, projectName and layout",
    {
      location: { file },
      hint: "restore it from version control, or recreate the project with `tsop init`",
    },
  );
}

function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (isRecord(value)) return "a mapping";
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

/**
 * PROJECT as far as generate and bundle read it (parsed `raw`; undefined: no PROJECT): present
 * means non-empty, a mapping, and resources (if any) a list.
 */
export function checkProjectShape(raw: unknown, file: string): void {
  if (raw === undefined) return;
  if (raw === null) throw emptyProjectError(file);
  if (!isRecord(raw))
    throw new InvalidInputError("the file must be a YAML mapping with domain, projectName and layout", {
      location: { file },
    });
  if (raw.resources !== undefined && raw.resources !== null && !Array.isArray(raw.resources)) {
    throw new InvalidInputError(`resources must be a list, not ${shapeOf(raw.resources)}`, {
      location: { file },
      hint: "edit PROJECT to fix this field (tsop init writes a valid one)",
    });
  }
}

/** Parses PROJECT text as plain values (syntax errors and alias bombs named); undefined for no text. */
export function parseProjectYaml(text: string, file: string): unknown {
  return readYamlValue(text, {
    where: file,
    onSyntaxError: (first) => {
      const reason = (first.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
      return new InvalidInputError(`${file} is not valid YAML: ${reason}`, {
        location: { file, line: first.linePos?.[0]?.line, column: first.linePos?.[0]?.col },
        hint: "fix the syntax, or recreate the project with `tsop init`",
      });
    },
  });
}

/** Parses PROJECT text; `file` is used in messages. `root` is the directory the file lives in. */
export function parseProject(text: string, file: string, root: string): Project {
  const raw = parseProjectYaml(text, file);
  if (raw === null || raw === undefined) throw emptyProjectError(file);
  if (!isRecord(raw)) {
    throw new InvalidInputError("the file must be a YAML mapping with domain, projectName and layout", {
      location: { file },
      hint: "restore it from version control, or recreate the project with `tsop init`",
    });
  }
  const problems: string[] = [];
  const domain = optionalString(raw, "domain", problems);
  const projectName = optionalString(raw, "projectName", problems);
  if (!domain) problems.push("domain is missing");
  else {
    const problem = checkDomain(domain);
    if (problem) problems.push(`domain: ${problem.replace("--domain ", "")}`);
  }
  if (!projectName) problems.push("projectName is missing");
  else {
    const problem = checkProjectName(projectName);
    if (problem) problems.push(`projectName: ${problem.replace("--project-name ", "")}`);
  }
  const layout = projectLayout(raw);
  const settings = tsopSettings(raw);
  const rawResources = raw.resources ?? [];
  if (!Array.isArray(rawResources)) problems.push("resources must be a list");
  const resources = (Array.isArray(rawResources) ? rawResources : [])
    .map((r, i) => parseResource(r, i, problems))
    .filter((r): r is ProjectResource => r !== undefined);
  const license = optionalString(settings, "license", problems);
  if (license !== undefined && license !== "apache2" && license !== "none") {
    problems.push(`license must be apache2 or none, not "${license}"`);
  }
  const image = optionalString(settings, "image", problems);
  const repo = optionalString(raw, "repo", problems);
  const owner = optionalString(settings, "owner", problems);
  if (problems.length > 0) {
    throw new AggregateTsopError(`${file} is invalid:`, problems, {
      hint: "edit PROJECT to fix these fields (tsop init writes a valid one)",
    });
  }
  for (const resource of resources) {
    if (!resource.domain) resource.domain = domain!;
  }
  const project: Project = {
    root,
    domain: domain!,
    projectName: projectName!,
    layout,
    resources,
    version: typeof raw.version === "string" ? raw.version : "3",
  };
  if (image !== undefined) project.image = image;
  if (repo !== undefined) project.repo = repo;
  if (owner !== undefined) project.owner = owner;
  if (license === "apache2" || license === "none") project.license = license;
  const legacy = legacyKeys(raw);
  if (legacy.length > 0) project.legacyKeys = legacy;
  return project;
}
