// Compile-time evaluation of decorator arguments: literals, arrays, objects, `as const`,
// `satisfies`, template strings and `+` over constants, enum members, and references to `const`
// declarations (also imported ones). Anything else is "not constant" and reported at that node.
import type TS from "typescript";
import { ts } from "./compiler.js";
import { resolveAlias } from "./program.js";

export type ConstValue = string | number | boolean | null | ConstValue[] | { [key: string]: ConstValue };

export class NotConstant {
  constructor(readonly node: TS.Node) {}
}

export function evaluate(checker: TS.TypeChecker, node: TS.Expression, depth = 0): ConstValue | NotConstant {
  if (depth > 50) return new NotConstant(node);
  const ev = (e: TS.Expression) => evaluate(checker, e, depth + 1);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (
    ts.isParenthesizedExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node) ||
    ts.isTypeAssertionExpression(node) ||
    ts.isNonNullExpression(node)
  ) {
    return ev(node.expression);
  }
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
    const v = ev(node.operand);
    return typeof v === "number" ? -v : new NotConstant(node);
  }
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const v = ev(span.expression);
      if (v instanceof NotConstant) return v;
      if (typeof v === "object" && v !== null) return new NotConstant(span.expression);
      text += String(v) + span.literal.text;
    }
    return text;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const l = ev(node.left);
    if (l instanceof NotConstant) return l;
    const r = ev(node.right);
    if (r instanceof NotConstant) return r;
    if (typeof l === "number" && typeof r === "number") return l + r;
    if (
      (typeof l === "string" || typeof l === "number") &&
      (typeof r === "string" || typeof r === "number")
    ) {
      return String(l) + String(r);
    }
    return new NotConstant(node);
  }
  if (ts.isArrayLiteralExpression(node)) {
    const out: ConstValue[] = [];
    for (const el of node.elements) {
      if (ts.isSpreadElement(el)) {
        const v = ev(el.expression);
        if (v instanceof NotConstant) return v;
        if (!Array.isArray(v)) return new NotConstant(el);
        out.push(...v);
        continue;
      }
      const v = ev(el);
      if (v instanceof NotConstant) return v;
      out.push(v);
    }
    return out;
  }
  if (ts.isObjectLiteralExpression(node)) {
    const out: { [key: string]: ConstValue } = {};
    for (const p of node.properties) {
      if (ts.isSpreadAssignment(p)) {
        const v = ev(p.expression);
        if (v instanceof NotConstant) return v;
        if (typeof v !== "object" || v === null || Array.isArray(v)) return new NotConstant(p);
        Object.assign(out, v);
        continue;
      }
      const key = propertyKey(checker, p.name, depth);
      if (key === undefined) return new NotConstant(p.name ?? p);
      if (ts.isPropertyAssignment(p)) {
        const v = ev(p.initializer);
        if (v instanceof NotConstant) return v;
        out[key] = v;
      } else if (ts.isShorthandPropertyAssignment(p)) {
        const v = fromSymbol(checker, checker.getShorthandAssignmentValueSymbol(p), p, depth);
        if (v instanceof NotConstant) return v;
        out[key] = v;
      } else {
        return new NotConstant(p);
      }
    }
    return out;
  }
  if (ts.isIdentifier(node)) {
    if (node.text === "undefined") return new NotConstant(node);
    return fromSymbol(checker, checker.getSymbolAtLocation(node), node, depth);
  }
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
    const enumValue = checker.getConstantValue(node);
    if (enumValue !== undefined) return enumValue;
    const base = ev(node.expression);
    if (base instanceof NotConstant) return base;
    const key = ts.isPropertyAccessExpression(node) ? node.name.text : ev(node.argumentExpression);
    if (key instanceof NotConstant) return key;
    if (typeof base === "object" && base !== null && (typeof key === "string" || typeof key === "number")) {
      const v = Array.isArray(base) ? base[Number(key)] : base[String(key)];
      if (v !== undefined) return v;
    }
    return new NotConstant(node);
  }
  return new NotConstant(node);
}

function propertyKey(
  checker: TS.TypeChecker,
  name: TS.PropertyName | undefined,
  depth: number,
): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) {
    const v = evaluate(checker, name.expression, depth + 1);
    return typeof v === "string" || typeof v === "number" ? String(v) : undefined;
  }
  return undefined;
}

function fromSymbol(
  checker: TS.TypeChecker,
  symbol: TS.Symbol | undefined,
  at: TS.Node,
  depth: number,
): ConstValue | NotConstant {
  const target = resolveAlias(checker, symbol);
  const decl = target?.valueDeclaration;
  if (!decl) return new NotConstant(at);
  if (ts.isEnumMember(decl)) {
    const v = checker.getConstantValue(decl);
    return v === undefined ? new NotConstant(at) : v;
  }
  if (ts.isVariableDeclaration(decl) && decl.initializer && ts.isVariableDeclarationList(decl.parent)) {
    if (!(decl.parent.flags & ts.NodeFlags.Const)) return new NotConstant(at);
    const v = evaluate(checker, decl.initializer, depth + 1);
    return v instanceof NotConstant ? new NotConstant(at) : v;
  }
  return new NotConstant(at);
}
