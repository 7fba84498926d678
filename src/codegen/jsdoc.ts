// Reads markers and descriptions from declarations: JSDoc tags (looked up in the marker table),
// their class-property decorator spellings, and the doc comment text that becomes `description`.
import type TS from "typescript";
import { ts } from "./compiler.js";
import type { Diagnostics } from "./diagnostics.js";
import { type ConstValue, evaluate, NotConstant } from "./evaluate.js";
import type { ApplyContext, Place, TagMarker } from "./marker-apply.js";
import { ParseFailure } from "./marker-parse.js";
import { FOREIGN_TAGS, suggest, TAG_BY_DECORATOR, TAG_BY_NAME } from "./markers.js";
import { msg } from "./messages.js";
import { isTsopSymbol } from "./program.js";
import type { Schema } from "./schema-types.js";

export interface FoundMarker {
  marker: TagMarker;
  value: unknown;
  node: TS.Node;
}

export interface DeclMarkers {
  own: FoundMarker[];
  /** From `@items <tag> <value>`: applied to the array's items. */
  items: FoundMarker[];
}

const KNOWN_NAMES = [...TAG_BY_NAME.keys(), "items"];

/** The JSDoc blocks attached to a declaration (for a variable statement's declaration, the statement's). */
function jsDocsOf(decl: TS.Node): TS.JSDoc[] {
  return ts.getJSDocCommentsAndTags(decl).filter((d): d is TS.JSDoc => ts.isJSDoc(d));
}

/** The description: the closest JSDoc block's text; TODO lines and everything after a `---` line dropped. */
export function descriptionOf(decl: TS.Node): string | undefined {
  const docs = jsDocsOf(decl);
  const last = docs[docs.length - 1];
  if (!last) return undefined;
  const text = ts.getTextOfJSDocComment(last.comment);
  if (!text) return undefined;
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.trim().startsWith("```")) fenced = !fenced;
    if (!fenced && /^\s*---/.test(line)) break;
    if (!fenced && /^\s*TODO/.test(line)) continue;
    out.push(line.replace(/\s+$/, ""));
  }
  while (out.length && out[out.length - 1] === "") out.pop();
  const joined = out.join("\n").trim();
  return joined === "" ? undefined : joined;
}

export function collectMarkers(
  decl: TS.Node,
  place: Place,
  checker: TS.TypeChecker,
  diags: Diagnostics,
): DeclMarkers {
  const result: DeclMarkers = { own: [], items: [] };
  for (const doc of jsDocsOf(decl)) {
    for (const tag of doc.tags ?? []) {
      const name = tag.tagName.text;
      const text = ts.getTextOfJSDocComment(tag.comment) ?? "";
      if (name === "items") {
        const m = /^\s*(\S+)\s*([\s\S]*)$/.exec(text);
        const inner = m?.[1] ? TAG_BY_NAME.get(m[1]) : undefined;
        if (!m?.[1] || !inner) {
          diags.at(
            tag,
            msg.markerValue(
              "items",
              `unknown tag '${m?.[1] ?? ""}'`,
              "@items <tag> <value>, e.g. @items maxLength 255",
            ),
          );
          continue;
        }
        const found = parseMarker(inner, m[2] ?? "", tag, diags);
        if (found) result.items.push(found);
        continue;
      }
      const marker = TAG_BY_NAME.get(name);
      if (!marker) {
        if (!FOREIGN_TAGS.has(name)) {
          const s = suggest(name, KNOWN_NAMES);
          if (s) diags.at(tag, msg.unknownTag(name, s));
        }
        continue;
      }
      if (!marker.places.includes(place)) {
        diags.at(
          tag,
          msg.wrongPlace(
            name,
            place === "field" ? "a property" : "a type",
            marker.places.includes("field") ? "a property" : "an interface, type alias, class or enum",
          ),
        );
        continue;
      }
      const found = parseMarker(marker, text, tag, diags);
      if (found) result.own.push(found);
    }
  }
  if (place === "field") result.own.push(...decoratorMarkers(decl, checker, diags));
  return result;
}

function parseMarker(
  marker: TagMarker,
  text: string,
  node: TS.Node,
  diags: Diagnostics,
): FoundMarker | undefined {
  const value = marker.parse(text);
  if (value instanceof ParseFailure) {
    diags.at(node, msg.markerValue(marker.name, value.reason, marker.usage));
    return undefined;
  }
  return { marker, value, node };
}

/** Class-property decorator sugar (`@Minimum(1)`): the same markers, arguments turned into tag text. */
function decoratorMarkers(decl: TS.Node, checker: TS.TypeChecker, diags: Diagnostics): FoundMarker[] {
  if (!ts.canHaveDecorators(decl)) return [];
  const out: FoundMarker[] = [];
  for (const d of ts.getDecorators(decl) ?? []) {
    const call = d.expression;
    const callee = ts.isCallExpression(call) ? call.expression : call;
    const name = ts.isIdentifier(callee)
      ? callee.text
      : ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : undefined;
    const marker = name ? TAG_BY_DECORATOR.get(name) : undefined;
    if (
      !marker ||
      !isTsopSymbol(
        checker,
        checker.getSymbolAtLocation(ts.isPropertyAccessExpression(callee) ? callee.name : callee),
      )
    )
      continue;
    const args: ConstValue[] = [];
    let ok = true;
    for (const a of ts.isCallExpression(call) ? call.arguments : []) {
      const v = evaluate(checker, a);
      if (v instanceof NotConstant) {
        diags.at(v.node, msg.notConstant(v.node.getText()));
        ok = false;
        break;
      }
      args.push(v);
    }
    if (!ok) continue;
    const found = parseMarker(marker, argsToText(args), d, diags);
    if (found) out.push(found);
  }
  return out;
}

function argsToText(args: ConstValue[]): string {
  if (args.length === 0) return "";
  if (args.length > 1) return args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(";");
  const a = args[0] as ConstValue;
  if (typeof a === "string") return JSON.stringify(a);
  if (typeof a === "object" && a !== null && !Array.isArray(a)) {
    return Object.entries(a)
      .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : String(v)}`)
      .join(" ");
  }
  if (Array.isArray(a)) return a.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(";");
  return String(a);
}

/** Applies markers in priority order (source order within a priority). */
export function applyMarkers(
  schema: Schema,
  markers: readonly FoundMarker[],
  ctx: Omit<ApplyContext, "report">,
  diags: Diagnostics,
): void {
  const ordered = markers
    .map((m, i) => ({ m, i }))
    .sort((a, b) => a.m.marker.priority - b.m.marker.priority || a.i - b.i);
  for (const { m } of ordered) {
    m.marker.apply(schema, m.value, { ...ctx, report: (message) => diags.at(m.node, message) });
  }
}
