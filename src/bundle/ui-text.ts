// Text a UI shows (OperatorHub, the OpenShift console, `kubectl get csv`): control characters
// (NUL, escape, …) and bidirectional overrides (U+202E RIGHT-TO-LEFT OVERRIDE, …) are refused, as
// they hide or reorder what a user reads. Tab and line breaks stay allowed (descriptions are
// Markdown).
import { isRecord, type ManifestObject } from "../manifests/index.js";

const NAMES: Record<number, string> = {
  0x00: "NUL",
  0x1b: "ESCAPE",
  0x7f: "DELETE",
  0x061c: "ARABIC LETTER MARK",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
};

// C0 controls but tab, LF and CR; DEL and the C1 controls; the bidirectional formatting marks.
/* eslint-disable no-control-regex -- matching control characters is the point */
const REFUSED =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/* eslint-enable no-control-regex */

/** Why text may not be shown in a UI, or undefined when it may. */
export function uiTextProblem(text: string): string | undefined {
  const hit = REFUSED.exec(text);
  if (!hit) return undefined;
  const code = hit[0].codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  const name = NAMES[code] ?? (code < 0x20 || (code >= 0x7f && code <= 0x9f) ? "a control character" : "");
  return `contains ${hex}${name ? ` (${name})` : ""} at character ${hit.index + 1}; control and bidirectional-override characters hide or reorder text in OperatorHub and the console`;
}

/** Every string of the CSV a UI shows, as [field path, text]. */
function uiStrings(csv: ManifestObject): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const visit = (value: unknown, path: string) => {
    if (typeof value === "string") out.push([path, value]);
    else if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${path}[${i}]`));
    else if (isRecord(value)) for (const [k, v] of Object.entries(value)) visit(v, `${path}.${k}`);
  };
  const spec = isRecord(csv.spec) ? csv.spec : {};
  for (const key of [
    "displayName",
    "description",
    "provider",
    "maintainers",
    "keywords",
    "links",
    "maturity",
  ])
    visit(spec[key], `spec.${key}`);
  const annotations =
    isRecord(csv.metadata) && isRecord(csv.metadata.annotations) ? csv.metadata.annotations : {};
  for (const key of ["description", "capabilities", "categories", "repository", "support"])
    visit(annotations[key], `metadata.annotations.${key}`);
  const crds = isRecord(spec.customresourcedefinitions) ? spec.customresourcedefinitions : {};
  for (const list of ["owned", "required"] as const) {
    const entries = Array.isArray(crds[list]) ? crds[list] : [];
    entries.forEach((entry: unknown, i: number) => {
      if (!isRecord(entry)) return;
      const at = `spec.customresourcedefinitions.${list}[${i}]`;
      visit(entry.displayName, `${at}.displayName`);
      visit(entry.description, `${at}.description`);
      for (const d of ["specDescriptors", "statusDescriptors"] as const) {
        const descriptors = Array.isArray(entry[d]) ? entry[d] : [];
        descriptors.forEach((desc: unknown, j: number) => {
          if (!isRecord(desc)) return;
          visit(desc.displayName, `${at}.${d}[${j}].displayName`);
          visit(desc.description, `${at}.${d}[${j}].description`);
        });
      }
    });
  }
  return out;
}

/** "<field> contains U+…" for every UI string of the CSV that may not be shown. */
export function uiTextProblems(csv: ManifestObject): string[] {
  return uiStrings(csv).flatMap(([path, text]) => {
    const problem = uiTextProblem(text);
    return problem ? [`${path} ${problem}`] : [];
  });
}
