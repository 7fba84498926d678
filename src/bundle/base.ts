// The base CSV at config/manifests/bases/<package>.clusterserviceversion.yaml: created once from
// flags, the bundle config and (on a TTY) prompts; afterwards it belongs to the user. Later runs
// change it only for fields given explicitly as flags or with --interactive, and edit it through
// the yaml Document API so the user's comments and key order survive.
import { mkdir, readFile, writeFileAtomic } from "../common/fs.js";
import { dirname, join } from "node:path";
import { InvalidInputError, TsopError, UsageError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import { asRecords, isRecord, type ManifestObject, type LoadedObject, str } from "../manifests/index.js";
import { isMap, parseEditableDocuments } from "../common/yaml/edit.js";
import { parseYamlDocuments } from "../common/yaml/read.js";
import { yamlSyntaxError } from "../common/yaml/read-values.js";
import { toYaml } from "../common/yaml/write.js";
import { BASE_FIELDS, type BaseField, configValueText, displayForm, type FieldContext } from "./fields.js";
import { servedGvks } from "./collect.js";
import { schemaDescriptors } from "./descriptors.js";
import { uiTextProblem } from "./ui-text.js";

export interface PromptQuestion {
  message: string;
  default?: string;
  validate: (value: string) => Promise<true | string>;
}

/** How questions are asked; the CLI uses @inquirer/prompts, tests inject answers. */
export interface Prompter {
  input(question: PromptQuestion): Promise<string>;
}

export interface BaseOptions {
  cwd: string;
  packageName: string;
  /** Explicit values from flags (text as typed). */
  flags: Record<string, string>;
  /** Values from tsop.bundle.yaml / PROJECT bundle:. */
  config: Record<string, unknown>;
  configFile: string | undefined;
  /** A person can answer prompts (TTY and a prompter). */
  canPrompt: boolean;
  /** --interactive: ask again even though the base exists. */
  forcePrompt: boolean;
  /** false (--dry-run): prompted answers are not saved at once either. */
  saveAnswers?: boolean;
  /** --yes: take defaults instead of asking (placeholders for the required fields). */
  yes: boolean;
  /** The command line as typed, to show what to add when values are missing. */
  commandLine?: string;
  prompter: Prompter | undefined;
  crds: readonly LoadedObject[];
  reporter: Reporter;
}

export interface BaseResult {
  base: ManifestObject;
  path: string;
  status: "created" | "updated" | "unchanged";
  /**
   * The new or changed base, written by the caller together with the bundle (one output set), so a
   * failed run leaves no half-made base behind. Prompted answers are saved at once instead (they
   * cost the user typing), and then nothing is pending.
   */
  pending?: PendingBase;
}

export interface PendingBase {
  /** Absolute path. */
  file: string;
  content: string;
  /** Shown once it is written. */
  note: string;
}

/** Prompted answers are written at once; everything else is left to the caller's output set. */
async function settle(pending: PendingBase | undefined, now: boolean, reporter: Reporter) {
  if (!pending || !now) return pending === undefined ? {} : { pending };
  await mkdir(dirname(pending.file), { recursive: true });
  await writeFileAtomic(pending.file, pending.content);
  reporter.info(pending.note);
  return {};
}

export function basePath(packageName: string): string {
  return join("config", "manifests", "bases", `${packageName}.clusterserviceversion.yaml`);
}

function setPath(target: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  let current = target;
  path.slice(0, -1).forEach((key) => {
    if (!isRecord(current[key as string])) current[key as string] = {};
    current = current[key as string] as Record<string, unknown>;
  });
  const last = path[path.length - 1] as string;
  if (value === undefined) delete current[last];
  else current[last] = value;
}

function getValue(target: unknown, path: readonly (string | number)[]): unknown {
  let current = target;
  for (const key of path) current = isRecord(current) ? current[key as string] : undefined;
  return current;
}

/** An owned-CRD entry seeded from a CRD: name, version, kind, description and display name. */
export function ownedEntry(crd: ManifestObject, version: Record<string, unknown>): Record<string, unknown> {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const kind = isRecord(spec.names) ? str(spec.names.kind) : "";
  const schema = getValue(version, ["schema", "openAPIV3Schema"]);
  const description = str(isRecord(schema) ? schema.description : "");
  const descriptors = schemaDescriptors(schema);
  return {
    name: str(isRecord(crd.metadata) ? crd.metadata.name : ""),
    version: str(version.name),
    kind,
    displayName: (isRecord(schema) ? str(schema.title).trim() : "") || displayForm(kind),
    ...(description ? { description } : {}),
    ...(descriptors.spec.length > 0 ? { specDescriptors: descriptors.spec } : {}),
    ...(descriptors.status.length > 0 ? { statusDescriptors: descriptors.status } : {}),
  };
}

function newBase(
  packageName: string,
  values: Map<BaseField, unknown>,
  crds: readonly LoadedObject[],
): ManifestObject {
  const base: ManifestObject = {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: {
      name: `${packageName}.v0.0.0`,
      namespace: "placeholder",
      annotations: { "alm-examples": "[]", capabilities: "Basic Install" },
    },
    spec: {
      apiservicedefinitions: {},
      install: { spec: { deployments: null }, strategy: "" },
      version: "0.0.0",
    },
  };
  const owned = crds.flatMap((l) =>
    asRecords((l.object.spec as Record<string, unknown> | undefined)?.versions)
      .filter((v) => v.served !== false && servedGvks(l.object).length > 0)
      .map((v) => ownedEntry(l.object, v)),
  );
  if (owned.length > 0) setPath(base, ["spec", "customresourcedefinitions"], { owned });
  for (const [field, value] of values) setPath(base, field.path, value);
  return base;
}

async function askField(
  field: BaseField,
  prompter: Prompter,
  ctx: FieldContext,
  current: string | undefined,
): Promise<unknown> {
  let parsed: unknown;
  await prompter.input({
    message: field.question,
    ...(current !== undefined && current !== "" ? { default: current } : {}),
    validate: async (text) => {
      if (field.required && !text.trim()) return "A value is required.";
      const problem = uiTextProblem(text);
      if (problem) return `This ${problem}.`;
      try {
        parsed = await field.parse(text, ctx);
        return true;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
  return parsed;
}

async function parseField(
  field: BaseField,
  text: string,
  ctx: FieldContext,
  source: string,
): Promise<unknown> {
  const problem = uiTextProblem(text);
  if (problem)
    throw new UsageError(`${source}: ${problem}`, {
      hint: "remove the character; every field a UI shows must be plain text",
    });
  try {
    return await field.parse(text, ctx);
  } catch (error) {
    const hint = error instanceof TsopError ? error.hint : undefined;
    throw new UsageError(`${source}: ${(error as Error).message}`, hint === undefined ? {} : { hint });
  }
}

/** The base CSV's value, read as plain YAML: most runs change nothing in it. */
function findCsv(text: string, path: string): { value: ManifestObject; index: number } {
  const docs = parseYamlDocuments(text, path);
  const index = docs.findIndex(({ value }) => isRecord(value) && value.kind === "ClusterServiceVersion");
  if (index === -1) {
    throw new InvalidInputError(`no ClusterServiceVersion in ${path}`, {
      location: { file: path },
      hint: "restore the base CSV, or delete the file to have tsop create a new one",
    });
  }
  return { value: docs[index]!.value as ManifestObject, index };
}

/** The same document parsed for editing in place (comments kept), once a field changes. */
function editableCsv(text: string, path: string, index: number) {
  const docs = parseEditableDocuments(text);
  const doc = (Array.isArray(docs) ? docs : [docs])[index]!;
  if (doc.errors.length > 0) throw yamlSyntaxError(doc.errors[0]!, path, text);
  return doc;
}

export async function ensureBase(options: BaseOptions): Promise<BaseResult> {
  const path = basePath(options.packageName);
  const full = join(options.cwd, path);
  const ctx: FieldContext = { cwd: options.cwd, packageName: options.packageName };
  let existing: string | undefined;
  try {
    existing = await readFile(full, "utf8");
  } catch {
    existing = undefined;
  }

  const explicit = new Map<BaseField, unknown>();
  for (const field of BASE_FIELDS) {
    const text = options.flags[field.key];
    if (text !== undefined) explicit.set(field, await parseField(field, text, ctx, field.flag));
  }

  if (existing !== undefined) {
    const { value, index } = findCsv(existing, path);
    let editable: ReturnType<typeof editableCsv> | undefined;
    const doc = () => (editable ??= editableCsv(existing, path, index));
    const changes = new Map(explicit);
    if (options.forcePrompt) {
      if (!options.canPrompt || !options.prompter) {
        throw new UsageError("--interactive needs a terminal to ask questions on", {
          hint: "run it in a terminal, or give the fields as flags",
        });
      }
      for (const field of BASE_FIELDS) {
        if (changes.has(field)) continue;
        const current = field.render(getValue(value, field.path));
        changes.set(
          field,
          await askField(field, options.prompter, ctx, current || field.defaultValue?.(ctx)),
        );
      }
    }
    let changed = false;
    for (const [field, next] of changes) {
      if (JSON.stringify(getValue(value, field.path)) === JSON.stringify(next)) continue;
      if (next === undefined) doc().deleteIn(field.path);
      else if (isMap(doc().contents)) doc().setIn(field.path, doc().createNode(next));
      setPath(value, field.path, next);
      changed = true;
    }
    const pending = changed
      ? {
          file: full,
          content: doc().toString({ lineWidth: 0 }),
          note: `Updated ${path} (${[...changes.keys()].map((f) => f.key).join(", ")})`,
        }
      : undefined;
    const settled = await settle(
      pending,
      options.forcePrompt && options.saveAnswers !== false,
      options.reporter,
    );
    return { base: value, path, status: changed ? "updated" : "unchanged", ...settled };
  }

  // First run: flags, then the bundle config, then prompts or defaults.
  const values = new Map(explicit);
  const missing: BaseField[] = [];
  for (const field of BASE_FIELDS) {
    if (values.has(field)) continue;
    const configured = options.config[field.key];
    if (configured !== undefined && configured !== null) {
      const text = configValueText(field.key, configured);
      values.set(
        field,
        await parseField(field, text, ctx, `${options.configFile ?? "bundle config"} (${field.key})`),
      );
      continue;
    }
    missing.push(field);
  }
  const askable = options.canPrompt && options.prompter !== undefined;
  const unresolved: BaseField[] = [];
  let prompted = false;
  for (const field of missing) {
    // On a terminal, --yes still asks for required fields; without one it takes their placeholders.
    const fallback =
      field.defaultValue?.(ctx) ?? (options.yes && !askable ? field.yesDefault?.(ctx) : undefined);
    if (askable && (!options.yes || fallback === undefined)) {
      values.set(field, await askField(field, options.prompter!, ctx, fallback));
      prompted = true;
    } else if (fallback !== undefined) {
      const parsed = await field.parse(fallback, ctx);
      if (parsed !== undefined) values.set(field, parsed);
    } else unresolved.push(field);
  }
  if (unresolved.length > 0) throw missingFieldsError(path, unresolved, options.commandLine);
  const base = newBase(options.packageName, values, options.crds);
  const pending = {
    file: full,
    content: toYaml(base),
    note: `Created ${path}; edit it freely, tsop keeps your changes`,
  };
  return {
    base,
    path,
    status: "created",
    ...(await settle(pending, prompted && options.saveAnswers !== false, options.reporter)),
  };
}

/** No terminal and no --yes: name each missing field and the exact command line that supplies them. */
function missingFieldsError(path: string, fields: BaseField[], commandLine = "tsop bundle"): UsageError {
  const example: Record<string, string> = {
    description: "'What the operator manages'",
    providerName: "'Your Company'",
    maintainers: "'Jane Doe <jane@example.com>'",
  };
  const flags = fields.map((f) => `${f.flag} ${example[f.key] ?? "<value>"}`).join(" ");
  return new UsageError(
    `cannot create ${path}: no terminal to ask on, and these fields have no value:\n${fields
      .map((f) => `  - ${f.key}: ${f.flag} <value>, or "${f.key}:" in tsop.bundle.yaml`)
      .join(
        "\n",
      )}\nRun:\n  ${commandLine} ${flags}\nor accept placeholders to edit later:\n  ${commandLine} --yes`,
    {
      hint: "the base CSV is created once; afterwards edit it (or tsop.bundle.yaml) freely",
    },
  );
}

/** The prompter the CLI uses: @inquirer/prompts on stderr, loaded only when a question is asked. */
export function inquirerPrompter(): Prompter {
  return {
    async input(question) {
      const { input } = await import("@inquirer/prompts");
      try {
        return await input(
          {
            message: question.message,
            ...(question.default !== undefined ? { default: question.default } : {}),
            validate: question.validate,
          },
          { output: process.stderr },
        );
      } catch (error) {
        if ((error as Error).name === "ExitPromptError") throw new TsopError("cancelled", { exitCode: 130 });
        throw error;
      }
    },
  };
}
