// The base CSV's descriptive fields: one table drives the flags, the bundle config keys, the
// prompts, validation and where each value lands in the CSV. Adding a field here adds all four.
import { readFile, stat } from "../common/fs.js";
import { extname, resolve } from "node:path";
import semver from "semver";
import { InvalidInputError } from "../common/errors.js";
import { specialFileKind } from "../common/file-kind.js";

export interface Maintainer {
  name: string;
  email: string;
}
export interface Link {
  name: string;
  url: string;
}

export const CAPABILITY_LEVELS = [
  "Basic Install",
  "Seamless Upgrades",
  "Full Lifecycle",
  "Deep Insights",
  "Auto Pilot",
];
export const MATURITY_LEVELS = [
  "planning",
  "pre-alpha",
  "alpha",
  "beta",
  "stable",
  "mature",
  "inactive",
  "deprecated",
];
export const INSTALL_MODES = ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"];
const ICON_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
};

export const EMAIL = /^[^\s@<>,]+@[^\s@<>,]+\.[^\s@<>,]+$/;

export interface FieldContext {
  cwd: string;
  packageName: string;
}

export interface BaseField {
  /** Key in tsop.bundle.yaml / PROJECT `bundle:` and in the options object. */
  key: string;
  flag: string;
  question: string;
  /** Must have a value on the first run (no sensible default). */
  required: boolean;
  /** Shown as the prompt default and used with --yes. */
  defaultValue?: (ctx: FieldContext) => string;
  /** A required field's placeholder with --yes (documented in docs/bundle.md; edit it later). */
  yesDefault?: (ctx: FieldContext) => string;
  /** Parses a flag or prompt answer (or a config value, rendered as text) into the CSV value. */
  parse: (text: string, ctx: FieldContext) => Promise<unknown> | unknown;
  /** Renders a CSV value back to prompt text (for --interactive on an existing base). */
  render: (value: unknown) => string;
  /** Path in the CSV where the value lands. */
  path: (string | number)[];
}

/** "memcached-operator" → "Memcached Operator" (operator-sdk's display form). */
export function displayForm(name: string): string {
  return name
    .split(/[.\-_ ]+/)
    .flatMap((word) => word.split(/(?<=[a-z0-9])(?=[A-Z])/))
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(" ");
}

function list(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function nonEmpty(what: string) {
  return (text: string) => {
    const value = text.trim();
    if (!value) throw new InvalidInputError(`${what} must not be empty`);
    return value;
  };
}

export function parseMaintainers(text: string): Maintainer[] {
  const out = list(text).map((entry) => {
    const angle = /^(.*?)\s*<([^>]+)>$/.exec(entry);
    const [name, email] = angle
      ? [angle[1]!.trim(), angle[2]!.trim()]
      : entry.split(":").map((s) => s.trim());
    if (!name || !email || /[<>]/.test(name) || !EMAIL.test(email)) {
      throw new InvalidInputError(
        `maintainer "${entry}" must be "Name <email>" or "name:email" with a valid email address`,
      );
    }
    return { name, email };
  });
  if (out.length === 0) throw new InvalidInputError("at least one maintainer is needed");
  return out;
}

export function parseLinks(text: string): Link[] {
  return list(text).map((entry) => {
    const eq = entry.indexOf("=");
    const name = entry.slice(0, eq).trim();
    const url = entry.slice(eq + 1).trim();
    if (eq <= 0 || !/^https?:\/\/\S+$/.test(url))
      throw new InvalidInputError(`link "${entry}" must be "Name=https://..."`);
    return { name, url };
  });
}

export function parseInstallModes(text: string): Array<{ supported: boolean; type: string }> {
  const wanted = list(text);
  for (const mode of wanted) {
    if (!INSTALL_MODES.includes(mode)) {
      throw new InvalidInputError(`install mode "${mode}" is not one of ${INSTALL_MODES.join(", ")}`);
    }
  }
  if (wanted.length === 0) throw new InvalidInputError("at least one install mode must be supported");
  return INSTALL_MODES.map((type) => ({ supported: wanted.includes(type), type }));
}

export function parseMinKubeVersion(text: string): string {
  const value = text.trim().replace(/^v/, "");
  if (semver.valid(value) !== value)
    throw new InvalidInputError(`minKubeVersion "${text}" must be a full version such as 1.28.0`);
  return value;
}

/** The largest icon file tsop puts into a CSV. */
export const MAX_ICON_BYTES = 512 * 1024;

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

export async function readIcon(
  path: string,
  cwd: string,
): Promise<Array<{ base64data: string; mediatype: string }>> {
  const mediatype = ICON_TYPES[extname(path).toLowerCase()];
  if (!mediatype) throw new InvalidInputError(`icon ${path} must be a .png, .svg, .jpg or .gif file`);
  const file = resolve(cwd, path);
  const info = await stat(file).catch(() => undefined);
  if (info && !info.isFile())
    throw new InvalidInputError(
      `icon ${path} is a ${info.isDirectory() ? "directory" : specialFileKind(info)}, not an image file`,
    );
  // Checked before reading: the CSV carries the icon base64-encoded, and one oversized icon made
  // a CSV that the API server (and tsop bundle validate) refuses.
  if (info && info.size > MAX_ICON_BYTES) {
    throw new InvalidInputError(
      `icon ${path} is ${kib(info.size)}; an icon may be at most ${kib(MAX_ICON_BYTES)} (the CSV carries it base64-encoded, and the API server stores objects of at most 1.5 MiB)`,
      {
        hint: "use a smaller image: OperatorHub shows the icon at 80×80 pixels, so a PNG or SVG of a few KiB will do",
      },
    );
  }
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    throw new InvalidInputError(`icon file ${path} cannot be read`);
  }
  return [{ base64data: data.toString("base64"), mediatype }];
}

function oneOf(what: string, choices: string[]) {
  return (text: string) => {
    const value = text.trim();
    const hit = choices.find((c) => c.toLowerCase() === value.toLowerCase());
    if (!hit) throw new InvalidInputError(`${what} "${value}" is not one of: ${choices.join(", ")}`);
    return hit;
  };
}

const asText = (v: unknown) => (typeof v === "string" ? v : "");

export const BASE_FIELDS: BaseField[] = [
  {
    key: "displayName",
    flag: "--display-name",
    question: "Display name for the operator",
    required: false,
    defaultValue: (ctx) => displayForm(ctx.packageName),
    parse: nonEmpty("display name"),
    render: asText,
    path: ["spec", "displayName"],
  },
  {
    key: "description",
    flag: "--description",
    question: "Description of the operator",
    required: true,
    yesDefault: (ctx) => `The ${displayForm(ctx.packageName)} operator.`,
    parse: nonEmpty("description"),
    render: asText,
    path: ["spec", "description"],
  },
  {
    key: "providerName",
    flag: "--provider-name",
    question: "Provider's name (company or person shipping the operator)",
    required: true,
    yesDefault: (ctx) => `The ${ctx.packageName} Authors`,
    parse: nonEmpty("provider name"),
    render: asText,
    path: ["spec", "provider", "name"],
  },
  {
    key: "providerUrl",
    flag: "--provider-url",
    question: "Provider's URL (optional)",
    required: false,
    defaultValue: () => "",
    parse: (t) => {
      const v = t.trim();
      if (v && !/^https?:\/\/\S+$/.test(v))
        throw new InvalidInputError(`provider URL "${v}" must start with http:// or https://`);
      return v || undefined;
    },
    render: asText,
    path: ["spec", "provider", "url"],
  },
  {
    key: "keywords",
    flag: "--keywords",
    question: "Keywords, comma-separated",
    required: false,
    defaultValue: (ctx) => ctx.packageName,
    parse: (t) => {
      const v = list(t);
      if (v.length === 0) throw new InvalidInputError("at least one keyword is needed");
      return v;
    },
    render: (v) => (Array.isArray(v) ? v.join(", ") : ""),
    path: ["spec", "keywords"],
  },
  {
    key: "maintainers",
    flag: "--maintainers",
    question: 'Maintainers, comma-separated ("Jane Doe <jane@example.com>, ...")',
    required: true,
    yesDefault: (ctx) => `The ${ctx.packageName} Authors <${ctx.packageName}@example.com>`,
    parse: parseMaintainers,
    render: (v) =>
      Array.isArray(v)
        ? v.map((m) => `${(m as Maintainer).name} <${(m as Maintainer).email}>`).join(", ")
        : "",
    path: ["spec", "maintainers"],
  },
  {
    key: "maturity",
    flag: "--maturity",
    question: `Maturity (${MATURITY_LEVELS.join(", ")})`,
    required: false,
    defaultValue: () => "alpha",
    parse: oneOf("maturity", MATURITY_LEVELS),
    render: asText,
    path: ["spec", "maturity"],
  },
  {
    key: "capabilities",
    flag: "--capabilities",
    question: `Capability level (${CAPABILITY_LEVELS.join(", ")})`,
    required: false,
    defaultValue: () => "Basic Install",
    parse: oneOf("capability level", CAPABILITY_LEVELS),
    render: asText,
    path: ["metadata", "annotations", "capabilities"],
  },
  {
    key: "icon",
    flag: "--icon",
    question: "Icon file (.png, .svg, .jpg or .gif; optional)",
    required: false,
    defaultValue: () => "",
    parse: (t, ctx) => (t.trim() ? readIcon(t.trim(), ctx.cwd) : undefined),
    render: () => "",
    path: ["spec", "icon"],
  },
  {
    key: "links",
    flag: "--links",
    question: 'Links, comma-separated ("Documentation=https://...", optional)',
    required: false,
    defaultValue: () => "",
    parse: (t) => (t.trim() ? parseLinks(t) : undefined),
    render: (v) =>
      Array.isArray(v) ? v.map((l) => `${(l as Link).name}=${(l as Link).url}`).join(", ") : "",
    path: ["spec", "links"],
  },
  {
    key: "minKubeVersion",
    flag: "--min-kube-version",
    question: "Minimum Kubernetes version (e.g. 1.28.0; optional)",
    required: false,
    defaultValue: () => "",
    parse: (t) => (t.trim() ? parseMinKubeVersion(t) : undefined),
    render: asText,
    path: ["spec", "minKubeVersion"],
  },
  {
    key: "installModes",
    flag: "--install-modes",
    question: `Supported install modes, comma-separated (${INSTALL_MODES.join(", ")})`,
    required: false,
    defaultValue: () => "AllNamespaces",
    parse: parseInstallModes,
    render: (v) =>
      Array.isArray(v)
        ? v
            .filter((m) => (m as { supported?: boolean }).supported)
            .map((m) => (m as { type: string }).type)
            .join(", ")
        : "",
    path: ["spec", "installModes"],
  },
];

/** Renders a config-file value (string, list or map) as the text a flag would carry. */
export function configValueText(key: string, value: unknown): string {
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (Array.isArray(value)) {
    return value
      .map((v) => {
        if (typeof v === "string") return v;
        const r = v as Record<string, unknown>;
        if (key === "maintainers") return `${String(r.name)} <${String(r.email)}>`;
        if (key === "links") return `${String(r.name)}=${String(r.url)}`;
        return String(v);
      })
      .join(", ");
  }
  if (key === "providerName" && value && typeof value === "object")
    return String((value as Record<string, unknown>).name ?? "");
  return "";
}
