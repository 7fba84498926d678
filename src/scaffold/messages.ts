// User-facing text of init and create api, in one place so tests can match the wording.

export const messages = {
  missingOptions: "these values are required and there is no terminal to ask for them:",
  missingOptionsHint: "pass them as flags (see `tsop init --help`), e.g. --domain example.com",
  invalidOptions: "invalid options:",
  invalidOptionsHint: "fix the values above and run the command again; nothing was written",
  notEmpty: (dir: string, entries: readonly string[]) =>
    `${dir} is not empty (${entries.slice(0, 5).join(", ")}${entries.length > 5 ? ", …" : ""})`,
  notEmptyHint: "choose an empty or new directory, or pass --force to scaffold into it anyway",
  alreadyProject: (dir: string) => `${dir} already holds a tsop project (PROJECT exists)`,
  alreadyProjectHint:
    "use `tsop create api` to add to it; if an earlier `tsop init` stopped half-way, run it again with --force to repair the project",
  alreadyProjectWithApis: (dir: string, count: number) =>
    `${dir} already holds a tsop project with ${count} API(s); --force repairs only a project that has none yet`,
  alreadyProjectWithApisHint:
    "to reinstall dependencies run `npm install` in the project; to start over, remove the directory first",
  tsopDependency: (spec: string, source: "flag" | "registry" | "packed") =>
    source === "packed"
      ? `tsop dependency: ${spec} (this tsop is not from the npm registry, so init packed it into the project; pass --tsop-dependency to choose another)`
      : source === "registry"
        ? `tsop dependency: ${spec} (from the npm registry)`
        : `tsop dependency: ${spec} (--tsop-dependency)`,
  duplicateResource: (gvk: string) => `${gvk} is already in PROJECT`,
  duplicateResourceHint: "choose another kind or version; PROJECT lists the existing ones under resources",
  noApiYet: (gvk: string) => `--resource=false needs ${gvk} to exist already, but PROJECT has no API for it`,
  noApiYetHint: "create the API first (without --resource=false)",
  kindClashes: (kind: string) =>
    `--kind "${kind}" clashes with a name the scaffolded code uses; choose another kind`,
  pluralTaken: (plural: string, kind: string, group: string) =>
    `--plural "${plural}" is already used by ${kind} in group ${group}; pass another --plural`,
  nothingToCreate: "--resource=false and --controller=false leave nothing to scaffold",
  nothingToCreateHint: "drop one of them",
  noWebhookKind: "choose at least one of --defaulting, --programmatic-validation and --conversion",
  noApiForWebhook: (gvk: string) => `${gvk} has no API type in PROJECT, so tsop cannot add webhooks for it`,
  noApiForWebhookHint: (o: { group: string; version: string; kind: string }) =>
    `create it first: tsop create api --group ${o.group} --version ${o.version} --kind ${o.kind}`,
  conversionNeedsVersions: (gvk: string) =>
    `--conversion makes ${gvk} the hub of a multi-version kind, but PROJECT has no other version of it`,
  conversionNeedsVersionsHint: (o: { group: string; kind: string }) =>
    `add another version first, e.g. tsop create api --group ${o.group} --version v2 --kind ${o.kind} --controller=false`,
  duplicateWebhook: (gvk: string) => `${gvk} already has these webhooks in PROJECT`,
  duplicateWebhookHint: "pass --force to scaffold them again (each overwritten file is reported)",
  installFailed: (dir: string) => `npm install failed in ${dir}`,
  installFailedHint: "fix the problem shown above, then run `npm install` in the project",
  lockRepaired: (lock: string, packages: string[]) =>
    `the npm registry did not serve ${packages.join(", ")}, so npm install left ${packages.length === 1 ? "it" : "them"} out ` +
    `and wrote a lock npm ci refuses ("Missing: … from lock file", npm/cli#9846); dropped ${packages.length === 1 ? "that edge" : "those edges"} ` +
    `from ${lock} so npm ci installs what npm install did`,
  tsopNotOnRegistryHint: (spec: string) =>
    `the npm registry cannot serve tsop ${spec}: run \`tsop init --force\` again with --tsop-dependency file:<path to a tsop clone or tarball>, or run tsop from a clone (init then packs it into the project)`,
  projectMigrated: (keys: readonly string[]) =>
    `PROJECT: moved ${keys.join(", ")} under plugins.tsop.dev/v1 (kubebuilder and operator-sdk read PROJECT and refuse fields they do not know)`,
} as const;
