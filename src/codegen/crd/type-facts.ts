// What the schema walk asks of a declaration or a type node: where it is declared (the project, an
// installed package, @kubernetes/client-node's models, TypeScript's lib), whether a property is data
// that JSON carries, and the literal a literal type node spells.
import type TS from "typescript";
import { ts } from "../compiler.js";
import { isTsopFile, isTypeScriptLibFile } from "../program.js";
import type { Schema } from "../schema-types.js";

/** Declared in an installed package (not the project, not tsop). */
export function fromDependency(node: TS.Node): boolean {
  const name = node.getSourceFile().fileName;
  return /[\\/]node_modules[\\/]/.test(name) && !isTsopFile(name) && !isLibFile(node);
}

/** Declared by @kubernetes/client-node (its generated models). */
export function fromClientNode(node: TS.Node): boolean {
  return /[\\/]node_modules[\\/]@kubernetes[\\/]client-node[\\/]/.test(node.getSourceFile().fileName);
}

export function isErrorType(type: TS.Type): boolean {
  return (type as { intrinsicName?: string }).intrinsicName === "error";
}

export function isLibFile(decl: TS.Node): boolean {
  return isTypeScriptLibFile(decl.getSourceFile().fileName);
}

export function isDataProperty(symbol: TS.Symbol): boolean {
  if (symbol.flags & (ts.SymbolFlags.Method | ts.SymbolFlags.Accessor | ts.SymbolFlags.Prototype))
    return false;
  const decl = symbol.valueDeclaration;
  // `#secret` fields are not own enumerable properties: JSON.stringify never sends them.
  if (decl && "name" in decl && decl.name && ts.isPrivateIdentifier(decl.name as TS.Node)) return false;
  if (
    decl &&
    ts.canHaveModifiers(decl) &&
    ts.getModifiers(decl)?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)
  )
    return false;
  return true;
}

export function isNullOrUndefinedNode(t: TS.TypeNode): boolean {
  return (
    t.kind === ts.SyntaxKind.UndefinedKeyword ||
    (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword)
  );
}

export function literalOfNode(n: TS.LiteralTypeNode): string | number | boolean | undefined {
  const l = n.literal;
  if (ts.isStringLiteral(l) || ts.isNoSubstitutionTemplateLiteral(l)) return l.text;
  if (ts.isNumericLiteral(l)) return Number(l.text);
  if (
    ts.isPrefixUnaryExpression(l) &&
    l.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(l.operand)
  )
    return -Number(l.operand.text);
  if (l.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (l.kind === ts.SyntaxKind.FalseKeyword) return false;
  return undefined;
}

export function literalSchema(values: Array<string | number | boolean>): Schema {
  const first = values[0];
  if (typeof first === "string") return { type: "string", enum: values };
  if (typeof first === "boolean") return { type: "boolean", enum: values };
  return { type: values.every((v) => Number.isInteger(v)) ? "integer" : "number", enum: values };
}

/** Whether a type node mentions a type parameter (then the checker's instantiated type is used instead). */
export function refersToTypeParameter(checker: TS.TypeChecker, node: TS.Node): boolean {
  let found = false;
  const visit = (n: TS.Node): void => {
    if (found) return;
    if (ts.isTypeReferenceNode(n)) {
      const sym = checker.getSymbolAtLocation(n.typeName);
      if (sym && sym.flags & ts.SymbolFlags.TypeParameter) {
        found = true;
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}
