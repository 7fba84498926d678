// Marker application in the schema walk: which markers a declaration carries and how they land on
// the schema built for it. Type markers apply after the rules the type's fields put on it, `@items`
// markers on the array's items, field markers with the field's context (name, optional, required).
// What each marker does is in the marker table (../markers.ts).
import type TS from "typescript";
import type { Diagnostics } from "../diagnostics.js";
import { applyMarkers, collectMarkers, type DeclMarkers, type FoundMarker } from "../jsdoc.js";
import type { FieldContext, Place, SchemaKind } from "../marker-apply.js";
import { msg } from "../messages.js";
import { isTsopFile } from "../program.js";
import { type Schema, VALIDATIONS } from "../schema-types.js";

type KindOf = (schema: Schema) => SchemaKind;

/** The markers of a declaration; tsop's own declarations carry none. */
export function markersOf(
  decl: TS.Node,
  place: Place,
  checker: TS.TypeChecker,
  diags: Diagnostics,
): DeclMarkers | undefined {
  const fromTsop = isTsopFile(decl.getSourceFile().fileName);
  return fromTsop ? undefined : collectMarkers(decl, place, checker, diags);
}

/** A @schemaless declaration is opaque: its members are never walked (nor checked). */
export function isOpaque(markers: DeclMarkers | undefined): boolean | undefined {
  return markers?.own.some((m) => m.marker.name === "schemaless" && m.value === true);
}

export function applyTypeMarkers(
  schema: Schema,
  markers: DeclMarkers,
  kindOf: KindOf,
  diags: Diagnostics,
): void {
  // Type rules come after the rules the type's fields put on it (immutable-once-set): keep those last.
  const parentRules = schema[VALIDATIONS];
  if (parentRules) delete schema[VALIDATIONS];
  applyMarkers(schema, markers.own, { kindOf }, diags);
  applyItemMarkers(schema, markers.items, kindOf, diags);
  if (parentRules) schema[VALIDATIONS] = [...(schema[VALIDATIONS] ?? []), ...parentRules];
}

export function applyFieldMarkers(
  schema: Schema,
  markers: DeclMarkers,
  field: FieldContext,
  kindOf: KindOf,
  diags: Diagnostics,
): void {
  applyMarkers(schema, markers.own, { kindOf, field }, diags);
  applyItemMarkers(schema, markers.items, kindOf, diags);
}

function applyItemMarkers(schema: Schema, items: FoundMarker[], kindOf: KindOf, diags: Diagnostics): void {
  if (items.length === 0) return;
  if (!schema.items) {
    for (const m of items) diags.at(m.node, msg.markerTarget("items", "an array", kindOf(schema)));
    return;
  }
  applyMarkers(schema.items, items, { kindOf }, diags);
}
