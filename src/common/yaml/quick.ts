// A quick reader for the common case of plain Kubernetes YAML. The yaml package is tsop's YAML
// library (positions for errors, comments kept when editing, YAML 1.1-safe writing), but it is slow
// to run for the first time in a process: reading a project's config tree (~15 KB) cost `tsop
// bundle` ~40 ms of ~200, js-yaml ~6 ms. So plain values are read with js-yaml first, set up to
// resolve scalars exactly as the yaml package's YAML 1.2 core schema does (the same patterns and
// conversions, copied from yaml/dist/schema/core), and the quick answer is used only when nothing in
// the text could make the two libraries disagree. Otherwise — an error, an anchor or alias (whose
// expansion the yaml package bounds), an explicit tag, a directive, a complex key, an empty
// document — the caller reads the text with the yaml package, which also gives the error's position.
// test/common/yaml-quick.test.ts compares both readers on every YAML file of the repository and on
// mutations of them.
import jsYaml from "js-yaml";

const scalar = (name: string, pattern: RegExp, construct: (text: string) => unknown) =>
  new jsYaml.Type(`tsop:${name}`, {
    kind: "scalar",
    resolve: (text: string) => pattern.test(text),
    construct,
  });

/** The yaml package's core schema tags, in its order (yaml/dist/schema/core/schema.js). */
const CORE_SCALARS = [
  scalar("null", /^(?:~|[Nn]ull|NULL)?$/, () => null),
  scalar("bool", /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (text) => text[0] === "t" || text[0] === "T"),
  scalar("int-oct", /^0o[0-7]+$/, (text) => parseInt(text.substring(2), 8)),
  scalar("int", /^[-+]?[0-9]+$/, (text) => parseInt(text, 10)),
  scalar("int-hex", /^0x[0-9a-fA-F]+$/, (text) => parseInt(text.substring(2), 16)),
  scalar("float-nan", /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/, (text) =>
    text.slice(-3).toLowerCase() === "nan"
      ? NaN
      : text[0] === "-"
        ? Number.NEGATIVE_INFINITY
        : Number.POSITIVE_INFINITY,
  ),
  scalar("float-exp", /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, (text) => parseFloat(text)),
  scalar("float", /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, (text) => parseFloat(text)),
];

const SCHEMA = jsYaml.FAILSAFE_SCHEMA.extend({ implicit: CORE_SCALARS });

/**
 * Texts left to the yaml package before reading, where the libraries were seen to disagree: a
 * directive (%YAML 1.1 changes the schema); a complex mapping key ("? ", "[a]: ", "{a: 1}: ", which
 * they turn into different strings); __proto__ (each guards it its own way); an empty sequence entry
 * ("- " or "- # note": js-yaml then misreads the indentation of the next lines); a comment not
 * separated from a flow collection or quoted scalar ("[]#", which the yaml package refuses); an
 * empty key (": x", "[a,: b]"); a tab in indentation (the yaml package refuses it).
 * Conservative: a match only costs the quick path.
 */
const LEFT_TO_YAML_PACKAGE =
  /^%|(?:^|[\s,[{])\?(?:\s|$)|[\]}]\s*:(?:\s|$)|__proto__|^[ \t]*-[ \t]*(?:#.*)?$|[\]}'"]#|(?:^|[,[{-])[ \t]*:(?:\s|$)|^ *\t/m;

/** Tags a node has when nothing but implicit resolution gave it one. */
function resolvedImplicitly(tag: string | null): boolean {
  return tag === null || tag === "?" || tag.startsWith("tsop:");
}

/**
 * The plain value of every document of `text` when the quick reader is sure to agree with the yaml
 * package's core schema, else undefined (the caller then reads with the yaml package).
 */
export function quickYamlDocuments(text: string): unknown[] | undefined {
  if (LEFT_TO_YAML_PACKAGE.test(text)) return undefined;
  let unsure = false;
  const opened: Array<{ line: number; position: number }> = [];
  // js-yaml's types do not declare the state's fields its loader sets on each node.
  const listener = (event: jsYaml.EventType, state: jsYaml.State) => {
    const node = state as unknown as NodeState;
    if (event === "open") {
      opened.push({ line: node.line, position: node.position });
      return;
    }
    const start = opened.pop();
    if (node.anchor !== null || !resolvedImplicitly(node.tag)) unsure = true;
    // A quoted scalar or flow collection over several lines: the yaml package checks the
    // indentation of its continuation lines, js-yaml does not.
    if (start && node.line > start.line && FLOW_START.has(firstNonBlank(text, start.position) ?? ""))
      unsure = true;
  };
  let documents: unknown[];
  try {
    documents = jsYaml.loadAll(text, undefined, { schema: SCHEMA, listener });
  } catch {
    return undefined;
  }
  // The libraries count empty documents (a trailing "---", a file of comments) differently.
  if (unsure || documents.length === 0 || documents.some((doc) => doc === null || doc === undefined))
    return undefined;
  // A null key ("~: x") is "null" to js-yaml and "" to the yaml package; a key "null" is rare enough
  // to leave every such text to the yaml package.
  return documents.some(hasNullKey) ? undefined : documents;
}

function hasNullKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasNullKey);
  if (value === null || typeof value !== "object") return false;
  return Object.hasOwn(value, "null") || Object.values(value).some(hasNullKey);
}

interface NodeState {
  tag: string | null;
  anchor: string | null;
  line: number;
  position: number;
}

const FLOW_START = new Set(['"', "'", "[", "{"]);

function firstNonBlank(text: string, from: number): string | undefined {
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char !== " " && char !== "\t" && char !== "\n" && char !== "\r") return char;
  }
  return undefined;
}
