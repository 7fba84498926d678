// The shape of a PROJECT file as tsop reads it. Unknown keys are kept on disk but not modelled.

/** The layout tsop writes and understands (PROJECT `layout`). */
export const LAYOUT = "tsop.dev/v1";

export interface ProjectResource {
  /** The short group (`cache`); the API group is `${group}.${domain}`. */
  group: string;
  domain: string;
  version: string;
  kind: string;
  plural: string;
  /** Whether an API type was scaffolded (false with `create api --resource=false`). */
  api?: { crdVersion: "v1"; namespaced: boolean };
  controller: boolean;
  /** Source file of the API type, relative to the project root. */
  path?: string;
  /** Webhooks scaffolded by `tsop create webhook` (kubebuilder's PROJECT shape). */
  webhooks?: ProjectWebhooks;
}

export interface ProjectWebhooks {
  defaulting?: boolean;
  validation?: boolean;
  conversion?: boolean;
  /** With conversion: the versions converted to and from this (hub) version. */
  spoke?: string[];
  webhookVersion: "v1";
}

export interface Project {
  /** Absolute directory holding the PROJECT file. */
  root: string;
  domain: string;
  projectName: string;
  layout: string[];
  /** The operator (manager) image, e.g. `example.com/memcached-operator:0.0.1`. */
  image?: string;
  repo?: string;
  owner?: string;
  license?: "apache2" | "none";
  resources: ProjectResource[];
  version: string;
  /** Top-level keys of an earlier tsop's PROJECT, moved under plugins.tsop.dev/v1 on the next write. */
  legacyKeys?: string[];
}
