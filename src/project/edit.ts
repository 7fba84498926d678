// Writes PROJECT text. A new file is rendered from scratch; later changes go through the yaml
// Document API so the user's comments, key order and extra keys survive.
import { InvalidInputError } from "../common/errors.js";
import { LAYOUT, type Project, type ProjectResource } from "./types.js";
import { isMap, isSeq, parseEditableDocument } from "../common/yaml/edit.js";
import { stringifyYaml } from "../common/yaml/write.js";
import { migrateSettings } from "./settings.js";

const HEADER = [
  "# tsop project facts: `tsop create api` adds to resources; generate and bundle read this file.",
  "# Edits are kept (tsop changes this file through a YAML editor that preserves comments).",
  "# kubebuilder and operator-sdk read it too: tsop's own settings live under plugins.tsop.dev/v1.",
];

type NewProject = Omit<Project, "root" | "layout" | "resources" | "version">;

export function renderNewProject(project: NewProject): string {
  const settings: Record<string, unknown> = {
    image: project.image,
    license: project.license,
    owner: project.owner,
  };
  for (const key of Object.keys(settings)) if (settings[key] === undefined) delete settings[key];
  const body: Record<string, unknown> = {
    domain: project.domain,
    plugins: { [LAYOUT]: settings },
    projectName: project.projectName,
    repo: project.repo,
    resources: [],
    version: "3",
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return `${HEADER.join("\n")}\n${stringifyYaml(body, { indentSeq: false })}`;
}

/** The PROJECT entry for a resource, with keys in a fixed order. */
function resourceEntry(resource: ProjectResource): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  if (resource.api) entry.api = { crdVersion: resource.api.crdVersion, namespaced: resource.api.namespaced };
  entry.controller = resource.controller;
  entry.domain = resource.domain;
  entry.group = resource.group;
  entry.kind = resource.kind;
  if (resource.path) entry.path = resource.path;
  entry.plural = resource.plural;
  entry.version = resource.version;
  if (resource.webhooks) {
    const w: Record<string, unknown> = {};
    for (const key of ["conversion", "defaulting"] as const) if (resource.webhooks[key]) w[key] = true;
    if (resource.webhooks.spoke?.length) w.spoke = resource.webhooks.spoke;
    if (resource.webhooks.validation) w.validation = true;
    w.webhookVersion = resource.webhooks.webhookVersion;
    entry.webhooks = w;
  }
  return entry;
}

/** Appends a resource to PROJECT text, keeping everything else as written. */
export function addResourceToProject(text: string, file: string, resource: ProjectResource): string {
  const doc = parseEditableDocument(text);
  migrateSettings(doc);
  const resources = doc.get("resources", true);
  if (resources === undefined || resources === null || (isSeq(resources) && resources.items.length === 0)) {
    // `resources: []` is a flow sequence; replace it so the result reads as block YAML.
    doc.set("resources", doc.createNode([resourceEntry(resource)]));
  } else if (isSeq(resources)) {
    resources.add(doc.createNode(resourceEntry(resource)));
  } else {
    throw new InvalidInputError(`${file}: resources must be a list`, {
      location: { file },
      hint: "fix PROJECT by hand, then run the command again",
    });
  }
  return doc.toString({ indentSeq: false });
}

/** Updates the entry of the same group/version/kind (controller, api, path, webhooks), keeping other keys and comments. */
export function updateResourceInProject(text: string, file: string, resource: ProjectResource): string {
  const doc = parseEditableDocument(text);
  migrateSettings(doc);
  const resources = doc.get("resources", true);
  const entry = isSeq(resources)
    ? resources.items.find(
        (item) =>
          isMap(item) &&
          item.get("group") === resource.group &&
          item.get("version") === resource.version &&
          item.get("kind") === resource.kind,
      )
    : undefined;
  if (!isMap(entry)) {
    throw new InvalidInputError(
      `${file} has no entry for ${resource.kind} (${resource.group}/${resource.version})`,
      {
        location: { file },
        hint: "PROJECT changed while tsop ran; run the command again",
      },
    );
  }
  const wanted = resourceEntry(resource);
  for (const key of ["api", "controller", "path", "webhooks"]) {
    if (wanted[key] !== undefined) entry.set(key, doc.createNode(wanted[key]));
  }
  return doc.toString({ indentSeq: false });
}
