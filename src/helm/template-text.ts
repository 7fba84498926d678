// Turning a manifest object into Helm template text without a template engine: fields that become
// template actions are replaced in the object by placeholder tokens, the object is written by the one
// YAML writer (sorted keys, as every manifest tsop writes), and the tokens are then swapped for the
// actions. An inline token stands for a scalar (`replicas: {{ .Values.replicas }}`); a block token
// is a map key whose whole line becomes lines of template text at that line's indentation.
import { toYaml } from "../common/yaml/write.js";

/** Lines of template text for a block, without the indentation of the line they replace. */
export type BlockLines = readonly string[];

/**
 * Placeholders for one object. Tokens are lowercase ("zzhelm<n>x") so that, as map keys, they sort
 * after every Kubernetes field name and never start a sequence item's map.
 */
export class Placeholders {
  private readonly inline = new Map<string, string>();
  private readonly blocks = new Map<string, (indent: number) => BlockLines>();

  /** A scalar that the template action `action` (e.g. `{{ .Values.replicas }}`) replaces. */
  value(action: string): string {
    const token = this.token();
    this.inline.set(token, action);
    return token;
  }

  /** A map key whose line is replaced by `lines(indent)`, each at that line's indentation. */
  block(lines: (indent: number) => BlockLines): string {
    const token = this.token();
    this.blocks.set(token, lines);
    return token;
  }

  private token(): string {
    return `zzhelm${this.inline.size + this.blocks.size}x`;
  }

  /** The object as template text: YAML with every placeholder replaced. */
  render(object: unknown): string {
    let text = toYaml(escapeActions(object));
    for (const [token, lines] of this.blocks) {
      const line = new RegExp(`^( *)${token}: .*$`, "m");
      const found = line.exec(text);
      if (!found) throw new Error(`helm template: block placeholder ${token} was not written`);
      const indent = found[1] ?? "";
      text = text.replace(line, () =>
        lines(indent.length)
          .map((l) => indent + l)
          .join("\n"),
      );
    }
    for (const [token, action] of this.inline) {
      if (!text.includes(token)) throw new Error(`helm template: placeholder ${token} was not written`);
      text = text.split(token).join(action);
    }
    return text;
  }
}

/**
 * Strings of the manifests that hold `{{` would be read by Helm as actions: they are written as an
 * action printing the braces, so the rendered manifest has the original text.
 */
function escapeActions(value: unknown): unknown {
  if (typeof value === "string") return value.includes("{{") ? value.split("{{").join('{{ "{{" }}') : value;
  if (Array.isArray(value)) return value.map(escapeActions);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [escapeActions(k) as string, escapeActions(v)]),
    );
  }
  return value;
}

/** `lines` between `{{- if condition }}` and `{{- end }}`, for a whole file or a block. */
export function guarded(condition: string, lines: BlockLines): BlockLines {
  return [`{{- if ${condition} }}`, ...lines, "{{- end }}"];
}

/** YAML text of `value` as lines (a sequence's items start at column 0), for a block. */
export function yamlLines(value: unknown): string[] {
  return toYaml(escapeActions(value)).trimEnd().split("\n");
}
