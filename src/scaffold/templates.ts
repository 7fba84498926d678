// Handlebars templates under templates/ (shipped in the npm package). Templates render whole new
// files only; edits of existing files go through markers.ts. Rendering is strict: a value the
// template needs but the data lacks is an error, never an empty string.
import { readdir, readFile } from "../common/fs.js";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import { TsopError } from "../common/errors.js";
import { yamlScalar } from "../common/yaml/write.js";

export const TEMPLATES_DIR = fileURLToPath(new URL("../../templates/", import.meta.url));

const hbs = Handlebars.create();
// A JSON string literal, for values placed inside TS or JSON source.
hbs.registerHelper("json", (value: unknown) => JSON.stringify(value));
hbs.registerHelper("lower", (value: unknown) => String(value).toLowerCase());
hbs.registerHelper("eq", (a: unknown, b: unknown) => a === b);

const cache = new Map<string, HandlebarsTemplateDelegate>();

export async function renderTemplate(template: string, data: object): Promise<string> {
  let compiled = cache.get(template);
  if (!compiled) {
    const source = await readFile(join(TEMPLATES_DIR, template), "utf8");
    compiled = hbs.compile(source, { noEscape: true, strict: true });
    cache.set(template, compiled);
  }
  try {
    return compiled({ ...data, yaml: yamlValues(data) });
  } catch (error) {
    throw new TsopError(`template ${template} could not be rendered: ${(error as Error).message}`, {
      cause: error,
      hint: "this is a bug in tsop's templates",
    });
  }
}

/**
 * `{{yaml.name}}`: the value as a YAML scalar, quoted when a YAML 1.1 reader would misread it
 * (`kind: On`, `newTag: 1.0`). A lookup, not a helper, so strict mode still names a missing value.
 */
function yamlValues(data: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value !== undefined && (value === null || typeof value !== "object")) out[key] = yamlScalar(value);
  }
  return out;
}

/** Every template file under templates/<dir>, relative to templates/ (sorted, '/' separators). */
export async function listTemplates(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function visit(current: string): Promise<void> {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) await visit(full);
      else out.push(relative(TEMPLATES_DIR, full).split(sep).join("/"));
    }
  }
  await visit(join(TEMPLATES_DIR, dir));
  return out.sort();
}

/** `init/_gitignore.hbs` → `.gitignore`: templates drop `.hbs`, and a leading `_` stands for a dot
 * (npm leaves dot files such as .gitignore out of published packages). */
export function targetPath(template: string, dir: string): string {
  const path = template.slice(dir.length + 1).replace(/\.hbs$/, "");
  return path
    .split("/")
    .map((part) => (part.startsWith("_") ? `.${part.slice(1)}` : part))
    .join("/");
}
