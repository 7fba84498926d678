// Insertion points in files the user owns: ordinary comments `<comment> +tsop:scaffold:<name>`.
// The comment syntax follows the file extension (an unknown extension is an error, not a guess).
// A fragment already present (same lines, indentation ignored) is not inserted again, so running
// `create api` twice does not duplicate wiring.
import { extname } from "node:path";
import { InvalidInputError, TsopError } from "../common/errors.js";

const COMMENT_BY_EXTENSION: Record<string, string> = {
  ".ts": "//",
  ".mts": "//",
  ".js": "//",
  ".mjs": "//",
  ".yaml": "#",
  ".yml": "#",
  ".sh": "#",
  ".dockerfile": "#",
};

export function markerComment(file: string, name: string): string {
  const comment = COMMENT_BY_EXTENSION[extname(file)];
  if (comment === undefined) {
    throw new TsopError(`tsop has no comment syntax for "${extname(file)}" files (${file})`, {
      hint: "this is a bug in a scaffold plan: markers are supported in .ts, .js and .yaml files",
    });
  }
  return `${comment} +tsop:scaffold:${name}`;
}

function lines(text: string): string[] {
  return text.split("\n").map((line) => line.trim());
}

/** Whether every line of `fragment` appears, in order and adjacent, in `text` (ignoring indentation). */
export function fragmentExists(text: string, fragment: string): boolean {
  const haystack = lines(text);
  const needle = lines(fragment.replace(/\n+$/, ""));
  if (needle.length === 0) return true;
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((line, j) => haystack[i + j] === line)) return true;
  }
  return false;
}

/** Inserts the missing fragments just above the marker line, indented like the marker. */
export function insertAtMarker(
  text: string,
  file: string,
  name: string,
  fragments: readonly string[],
): string {
  const marker = markerComment(file, name);
  const textLines = text.split("\n");
  const index = textLines.findIndex((line) => line.trim() === marker);
  if (index < 0) {
    throw new InvalidInputError(`${file} has no "${marker}" line, so tsop cannot add code there`, {
      location: { file },
      hint: `put the line "${marker}" back where new code should go, then run the command again`,
    });
  }
  const indent = /^\s*/.exec(textLines[index]!)![0];
  const added: string[] = [];
  for (const fragment of fragments) {
    if (fragmentExists(text, fragment) || fragmentExists(added.join("\n"), fragment)) continue;
    for (const line of fragment.replace(/\n+$/, "").split("\n")) {
      added.push(line === "" ? "" : indent + line);
    }
  }
  if (added.length === 0) return text;
  textLines.splice(index, 0, ...added);
  return textLines.join("\n");
}
