// Every diagnostic of the edge-case table: code, message, file:line:col, and that nothing was
// written when it is an error (warnings fail only with --strict, again writing nothing).
import { describe, expect, it } from "vitest";
import { expectDiagnostic, resource, runGenerate } from "./support.js";

interface Case {
  name: string;
  code: string;
  source: string;
  /** Unique text whose first character is the expected position. */
  at: string;
  message: string;
  warning?: boolean;
  file?: string;
}

const spec = (body: string, options?: Parameters<typeof resource>[1]) => resource(body, options);

const CASES: Case[] = [
  {
    name: "TypeScript syntax error (decorator on an interface member)",
    code: "TSOP1000",
    source: spec("  @Minimum(1) size?: Int32;"),
    at: "@Minimum",
    message: "TypeScript syntax error: Property or signature expected",
  },
  {
    name: "decorator argument that is not constant",
    code: "TSOP1001",
    source: spec("  a?: string;", { crd: '{ group: process.env.GROUP ?? "x", version: "v1" }' }),
    at: 'process.env.GROUP ?? "x"',
    message: "decorator argument 'process.env.GROUP ?? \"x\"' must be a compile-time constant",
  },
  {
    name: "unknown @CustomResource option",
    code: "TSOP1002",
    source: spec("  a?: string;", { crd: '{ group: "things.tsop.dev", version: "v1", shortname: ["t"] }' }),
    at: '{ group: "things.tsop.dev", version: "v1", shortname',
    message: "@CustomResource: unknown option 'shortname'; did you mean 'shortNames'?",
  },
  {
    name: "recursive type",
    code: "TSOP1010",
    source: spec("  root: TreeNode;", {
      prelude: "export interface TreeNode { name: string; children?: TreeNode[]; }",
    }),
    at: "children?: TreeNode[]",
    message: "recursive type TreeNode: TreeNode.children[] → TreeNode",
  },
  {
    name: "mutually recursive types",
    code: "TSOP1010",
    source: spec("  a?: A;", { prelude: "export interface A { b?: B }\nexport interface B { a?: A }" }),
    at: "a?: A }",
    message: "recursive type A: A.b → B.a → A",
  },
  {
    name: "any",
    code: "TSOP1011",
    source: spec("  value: any;"),
    at: "value: any",
    message: "cannot generate a schema for 'any'",
  },
  {
    name: "unknown",
    code: "TSOP1011",
    source: spec("  value?: unknown;"),
    at: "value?: unknown",
    message: "cannot generate a schema for 'unknown'",
  },
  {
    name: "object",
    code: "TSOP1011",
    source: spec("  value?: object;"),
    at: "value?: object",
    message: "cannot generate a schema for 'object'",
  },
  {
    name: "bigint",
    code: "TSOP1012",
    source: spec("  big?: bigint;"),
    at: "big?: bigint",
    message: "unsupported type 'bigint'",
  },
  {
    name: "symbol",
    code: "TSOP1012",
    source: spec("  sym?: symbol;"),
    at: "sym?: symbol",
    message: "unsupported type 'symbol'",
  },
  {
    name: "function",
    code: "TSOP1012",
    source: spec("  fn?: () => void;"),
    at: "fn?: () => void",
    message: "unsupported type '() => void'",
  },
  {
    name: "Map",
    code: "TSOP1012",
    source: spec("  m?: Map<string, string>;"),
    at: "m?: Map",
    message: "unsupported type 'Map<string, string>'",
  },
  {
    name: "tuple",
    code: "TSOP1013",
    source: spec("  pair?: [string, Int32];"),
    at: "pair?:",
    message: "tuple type '[string, Int32]'",
  },
  {
    name: "union of object types",
    code: "TSOP1014",
    source: spec("  either?: { a: string } | { b: string };"),
    at: "either?:",
    message: "union '{ a: string; } | { b: string; }' cannot be expressed",
  },
  {
    name: "number | string without IntOrString",
    code: "TSOP1014",
    source: spec("  port?: number | string;"),
    at: "port?:",
    message: "union 'string | number' cannot be expressed",
  },
  {
    name: "heterogeneous TS enum",
    code: "TSOP1015",
    source: spec("  mixed?: Mixed;", { prelude: 'export enum Mixed { A = "a", B = 1 }' }),
    at: "export enum Mixed",
    message: "enum 'Mixed' mixes strings and numbers",
  },
  {
    name: "mixed literal union",
    code: "TSOP1015",
    source: spec('  lit?: "a" | 1;'),
    at: "lit?:",
    message: "enum '\"a\" | 1' mixes strings and numbers",
  },
  {
    name: "enum mixing booleans and strings",
    code: "TSOP1015",
    source: spec('  mode?: boolean | "auto";'),
    at: "mode?:",
    message: "mixes strings and booleans",
  },

  {
    name: "free type parameter",
    code: "TSOP1016",
    source: [
      'import { CustomResource, KubeObject } from "tsop";',
      "export interface Box<T> { value: T }",
      '@CustomResource({ group: "things.tsop.dev", version: "v1" })',
      "export class Thing<T> extends KubeObject<Box<T>> {}",
      "",
    ].join("\n"),
    at: "value: T",
    message: "free type parameter 'T' reaches the schema",
  },
  {
    name: "index signature plus properties",
    code: "TSOP1017",
    source: spec("  both?: { [key: string]: string; named: string };"),
    at: "[key: string]: string",
    message: "has both named properties and an index signature",
  },
  {
    name: "number index signature",
    code: "TSOP1017",
    source: spec("  byNumber?: { [key: number]: string };"),
    at: "[key: number]",
    message: "map keys must be strings, not number",
  },
  {
    name: "conflicting intersection",
    code: "TSOP1018",
    source: spec("  both?: { a: string } & { a: Int32 };"),
    at: "a: string }",
    message: "conflicting types for property 'a' in an intersection: string vs Int32",
  },
  {
    name: "unresolved type",
    code: "TSOP1019",
    source: spec("  missing?: Missing;"),
    at: "missing?:",
    message: "cannot resolve type 'Missing'",
  },
  {
    name: "float",
    code: "TSOP1020",
    source: spec("  ratio?: number;"),
    at: "ratio?:",
    message: "'ThingSpec.ratio' is 'number'",
    warning: true,
  },
  {
    name: "Date",
    code: "TSOP1021",
    source: spec("  when?: Date;"),
    at: "when?:",
    message: "Date maps to 'type: string, format: date-time'",
    warning: true,
  },
  {
    name: "bare undefined",
    code: "TSOP1022",
    source: spec("  maybe: string | undefined;"),
    at: "maybe:",
    message: "property 'maybe' has '| undefined' without '?'",
    warning: true,
  },
  {
    name: "symbol-keyed property",
    code: "TSOP1023",
    source: spec("  [KEY]?: string;", { prelude: "declare const KEY: unique symbol;" }),
    at: "[KEY]",
    message: "property name [KEY] is computed or a symbol",
  },
  {
    name: "a property named __proto__ (JavaScript would drop it)",
    code: "TSOP1024",
    source: spec('  "__proto__"?: string;\n  size?: string;'),
    at: '"__proto__"',
    message: "property name __proto__ (ThingSpec) cannot be a CRD field",
  },
  {
    name: "string marker on a number",
    code: "TSOP1030",
    source: spec("  /** @minLength 1 */\n  count?: Int32;"),
    at: "@minLength",
    message: "must apply @minLength to a textual value, found integer",
  },
  {
    name: "numeric marker on a string",
    code: "TSOP1030",
    source: spec("  /** @maximum 3 */\n  name?: string;"),
    at: "@maximum",
    message: "must apply @maximum to a numeric value, found string",
  },
  {
    name: "non-integral bound on an integer",
    code: "TSOP1031",
    source: spec("  /** @minimum 1.5 */\n  count?: Int32;"),
    at: "@minimum",
    message: "cannot apply non-integral @minimum (1.5) to an integer",
  },
  {
    name: "unparsable marker value",
    code: "TSOP1032",
    source: spec("  /** @maxItems many */\n  list?: string[];"),
    at: "@maxItems",
    message: "@maxItems: expected a number, got 'many'",
  },
  {
    name: "pattern RE2 rejects (lookahead)",
    code: "TSOP1032",
    source: spec("  /** @pattern ^(?=a)b$ */\n  name?: string;"),
    at: "@pattern",
    message:
      "@pattern: not a regular expression the API server accepts (Go RE2 syntax): error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
  },
  {
    name: "pattern RE2 rejects (backreference)",
    code: "TSOP1032",
    source: spec("  /** @pattern ^(a)\\1$ */\n  name?: string;"),
    at: "@pattern",
    message: "error parsing regexp: invalid escape sequence: `\\1`",
  },
  {
    name: "bad CEL reason",
    code: "TSOP1032",
    source: spec('  /** @validation rule="self > 0" reason=Bogus */\n  count?: Int32;'),
    at: "@validation",
    message: "invalid reason Bogus, valid values are FieldValueInvalid",
  },
  {
    name: "typo'd tag",
    code: "TSOP1033",
    source: spec("  /** @minLenght 3 */\n  name?: string;"),
    at: "@minLenght",
    message: "unknown tag @minLenght; did you mean @minLength?",
    warning: true,
  },
  {
    name: "type-only tag on a field",
    code: "TSOP1034",
    source: spec("  /** @atMostOneOf a;b */\n  name?: string;"),
    at: "@atMostOneOf",
    message: "@atMostOneOf cannot be used on a property",
  },
  {
    name: "@CustomResource on an interface (TypeScript would ignore it)",
    code: "TSOP1034",
    source: [
      'import { CustomResource } from "tsop";',
      '@CustomResource({ group: "things.tsop.dev", version: "v1" })',
      "export interface Thing { spec?: { a?: string } }",
      "",
    ].join("\n"),
    at: "@CustomResource(",
    message: "@CustomResource on interface Thing: tsop's class decorators only work on classes",
  },
  {
    name: "kubebuilder validation marker (warning with the tsop spelling)",
    code: "TSOP1038",
    source: spec("  // +kubebuilder:validation:MinLength=1\n  name?: string;"),
    at: "+kubebuilder",
    message: "kubebuilder marker '+kubebuilder:validation:MinLength=1' is ignored",
    warning: true,
  },
  {
    name: "kubebuilder XValidation marker in a JSDoc block",
    code: "TSOP1038",
    source: spec(
      '  /**\n   * +kubebuilder:validation:XValidation:rule="self > 0",message="positive"\n   */\n  n?: Int32;',
    ),
    at: "+kubebuilder",
    message: "is ignored: tsop reads JSDoc tags and decorators",
    warning: true,
  },
  {
    name: "listMapKey without listType map",
    code: "TSOP1035",
    source: spec("  /** @listMapKey name */\n  items?: { name: string }[];"),
    at: "@listMapKey",
    message: "must apply @listMapKey to an associative list (@listType map)",
  },
  {
    name: "listMapKey naming a missing field",
    code: "TSOP1035",
    source: spec("  /**\n   * @listType map\n   * @listMapKey id\n   */\n  items?: { name: string }[];"),
    at: "items?:",
    message: "list map key 'id' is not a field of the items",
  },
  {
    name: "listMapKey on an optional field",
    code: "TSOP1035",
    source: spec("  /**\n   * @listType map\n   * @listMapKey name\n   */\n  items?: { name?: string }[];"),
    at: "items?:",
    message: "list map key 'name' must be required or have a @default",
  },
  {
    name: "default of the wrong type",
    code: "TSOP1036",
    source: spec("  /** @default 5 */\n  name?: string;"),
    at: "name?:",
    message: "@default value does not match the field's schema: value must be a string, got number 5",
  },
  {
    name: "default outside an enum",
    code: "TSOP1036",
    source: spec('  /** @default "Sometimes" */\n  policy?: "Always" | "Never";'),
    at: "policy?:",
    message: 'value "Sometimes" is not one of ["Always","Never"]',
  },
  {
    name: "oneOf naming a nested field",
    code: "TSOP1037",
    source: spec("  choice?: Choice;", {
      prelude: "/** @atMostOneOf a.b;c */\nexport interface Choice { a?: { b?: string }; c?: string }",
    }),
    at: "@atMostOneOf",
    message: "@atMostOneOf: cannot reference nested fields: a.b",
  },
  {
    name: "oneOf naming a required field",
    code: "TSOP1037",
    source: spec("  choice?: Choice;", {
      prelude: "/** @exactlyOneOf a;b */\nexport interface Choice { a: string; b?: string }",
    }),
    at: "@exactlyOneOf",
    message: "field a is part of a OneOf constraint and cannot be required",
  },
  {
    name: "impossible bounds",
    code: "TSOP1039",
    source: spec("  /**\n   * @minLength 5\n   * @maxLength 2\n   */\n  name?: string;"),
    at: "name?:",
    message: "minLength 5 is greater than maxLength 2",
  },
  {
    name: "group without a dot",
    code: "TSOP1040",
    source: spec("  a?: string;", { crd: '{ group: "things", version: "v1" }' }),
    at: '"things"',
    message: "invalid group 'things': it needs at least one dot",
  },
  {
    name: "empty group",
    code: "TSOP1040",
    source: spec("  a?: string;", { crd: '{ group: "", version: "v1" }' }),
    at: '""',
    message: "invalid group '': it is empty",
  },
  {
    name: "reserved group",
    code: "TSOP1049",
    source: spec("  a?: string;", { crd: '{ group: "things.k8s.io", version: "v1" }' }),
    at: '"things.k8s.io"',
    message: "group 'things.k8s.io' is under k8s.io or kubernetes.io",
    warning: true,
  },
  {
    name: "invalid version",
    code: "TSOP1041",
    source: spec("  a?: string;", { crd: '{ group: "things.tsop.dev", version: "V1" }' }),
    at: '"V1"',
    message: "invalid version 'V1': it is not a DNS-1035 label",
  },
  {
    name: "invalid plural",
    code: "TSOP1042",
    source: spec("  a?: string;", { crd: '{ group: "things.tsop.dev", version: "v1", plural: "Things" }' }),
    at: '"Things"',
    message: "invalid plural 'Things'",
  },
  {
    name: "invalid kind",
    code: "TSOP1042",
    source: spec("  a?: string;", { crd: '{ group: "things.tsop.dev", version: "v1", kind: "my-thing" }' }),
    at: '"my-thing"',
    message: "invalid kind 'my-thing'",
  },
  {
    name: "duplicate short names",
    code: "TSOP1042",
    source: spec("  a?: string;", {
      crd: '{ group: "things.tsop.dev", version: "v1", shortNames: ["th", "th"] }',
    }),
    at: '["th", "th"]',
    message: "short names must be unique",
  },
  {
    name: "invalid scope",
    code: "TSOP1043",
    source: spec("  a?: string;", {
      crd: '{ group: "things.tsop.dev", version: "v1", scope: "Global" as never }',
    }),
    at: '"Global"',
    message: "invalid scope 'Global'",
  },
  {
    name: "printer column with a bad type",
    code: "TSOP1052",
    source: spec("  a?: string;", {
      decorators: '@PrinterColumn({ name: "A", type: "text" as never, jsonPath: ".spec.a" })',
    }),
    at: '{ name: "A"',
    message: "printer column type 'text'",
  },
  {
    name: "printer column path naming no field",
    code: "TSOP1051",
    source: spec("  a?: string;", {
      decorators: '@PrinterColumn({ name: "A", type: "string", jsonPath: ".spec.b" })',
    }),
    at: '{ name: "A"',
    message: "printer column jsonPath '.spec.b' names no field of the schema (no 'b')",
  },
  {
    name: "scale path of the wrong type",
    code: "TSOP1051",
    source: spec("  replicas?: string;", {
      decorators: '@Scale({ specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" })',
    }),
    at: "{ specReplicasPath",
    message: "specReplicasPath '.spec.replicas' must be integer, found string",
  },
  {
    name: "status subresource without a status field",
    code: "TSOP1050",
    source: spec("  a?: string;", { decorators: "@Status()" }),
    at: "@CustomResource",
    message: "Thing has @Status() but no 'status' property",
    warning: true,
  },
];

const twoVersions = (v1: string, v2: string, extra = "") =>
  [
    'import { CustomResource, KubeObject, StorageVersion, Unserved, SkipVersion } from "tsop";',
    "export interface S { a?: string }",
    v1,
    "export class ThingV1 extends KubeObject<S> {}",
    v2,
    "export class ThingV2 extends KubeObject<S> {}",
    extra,
  ].join("\n");

CASES.push(
  {
    name: "duplicate kind version",
    code: "TSOP1044",
    source: twoVersions(
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing" })',
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing" })',
    ),
    at: '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing" })\nexport class ThingV2',
    message: "Thing version v1 is declared twice (also at api/types.ts:3:1)",
  },
  {
    name: "two kinds claim one plural",
    code: "TSOP1045",
    source: twoVersions(
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing", plural: "things" })',
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Other", plural: "things" })',
    ),
    at: '"things" })\nexport class ThingV2',
    message: "resource things.things.tsop.dev is claimed by two kinds",
  },
  {
    name: "versions disagree on CRD-wide settings",
    code: "TSOP1046",
    source: twoVersions(
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing", scope: "Cluster" })\n@StorageVersion()',
      '@CustomResource({ group: "things.tsop.dev", version: "v2", kind: "Thing" })',
    ),
    at: '@CustomResource({ group: "things.tsop.dev", version: "v2"',
    message: "Thing: versions disagree on scope (Namespaced here, Cluster at api/types.ts:3:",
  },
  {
    name: "no storage version",
    code: "TSOP1047",
    source: twoVersions(
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing" })',
      '@CustomResource({ group: "things.tsop.dev", version: "v2", kind: "Thing" })',
    ),
    at: '@CustomResource({ group: "things.tsop.dev", version: "v1"',
    message: "CRD for Thing.things.tsop.dev has no storage version",
  },
  {
    name: "two storage versions",
    code: "TSOP1047",
    source: twoVersions(
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing" })\n@StorageVersion()',
      '@CustomResource({ group: "things.tsop.dev", version: "v2", kind: "Thing" })\n@StorageVersion()',
    ),
    at: "@StorageVersion()\nexport class ThingV2",
    message: "has 2 storage versions (v1, v2)",
  },
  {
    name: "no served version",
    code: "TSOP1047",
    source: twoVersions(
      '@CustomResource({ group: "things.tsop.dev", version: "v1", kind: "Thing" })\n@StorageVersion()\n@Unserved()',
      '@CustomResource({ group: "things.tsop.dev", version: "v2", kind: "Thing", served: false })',
    ),
    at: '@CustomResource({ group: "things.tsop.dev", version: "v1"',
    message: "CRD for Thing.things.tsop.dev does not serve any version",
  },
  {
    name: "skipping the only version",
    code: "TSOP1048",
    source: spec("  a?: string;", { decorators: "@SkipVersion()" }),
    at: "@SkipVersion()",
    message: "cannot skip a version of Thing if there is only a single version",
  },
);

const rbac = (options: string) =>
  ['import { Rbac } from "tsop";', `@Rbac(${options})`, "export class Reconciler {}", ""].join("\n");

const RBAC_CASES: Case[] = [
  {
    name: "unknown RBAC verb",
    code: "TSOP1060",
    file: "controllers/reconciler.ts",
    source: rbac('{ groups: ["apps"], resources: ["deployments"], verbs: ["get", "lsit"] }'),
    at: "{ groups",
    message: "unknown RBAC verb 'lsit'; did you mean 'list'?",
  },
  {
    name: "urls with a namespace",
    code: "TSOP1061",
    file: "controllers/reconciler.ts",
    source: rbac('{ urls: ["/metrics"], verbs: ["get"], namespace: "system" }'),
    at: "{ urls",
    message: "@Rbac with both urls and namespace",
  },
  {
    name: "rule without resources or urls",
    code: "TSOP1062",
    file: "controllers/reconciler.ts",
    source: rbac('{ groups: ["apps"], verbs: ["get"] }'),
    at: "{ groups",
    message: "@Rbac needs resources or urls, and at least one verb",
  },
];

describe("codegen diagnostics", () => {
  for (const c of [...CASES, ...RBAC_CASES]) {
    it(`${c.code} ${c.name}`, async () => {
      const file = c.file ?? "api/types.ts";
      const outcome = await runGenerate({ [file]: c.source });
      expectDiagnostic(outcome, file, c.source, c.code, c.at, c.message);
      const d = outcome.diagnostics.find((x) => x.code === c.code);
      expect(d?.hint ?? "").not.toBe(undefined);
      if (c.warning) {
        expect(outcome.error).toBeUndefined();
        expect(d?.severity).toBe("warning");
        // --strict turns the warning into an error and writes nothing.
        const strict = await runGenerate({ [file]: c.source }, { strict: true });
        expect(strict.error).toBeDefined();
        expect(strict.after).toEqual(strict.before);
      } else {
        expect(outcome.error, "an error must fail the run").toBeDefined();
        expect(d?.severity).toBe("error");
        expect(outcome.after, "nothing may be written").toEqual(outcome.before);
      }
    });
  }

  it("TSOP1038 gives the tsop spelling of kubebuilder markers", async () => {
    const source = spec(
      [
        '  // +kubebuilder:validation:XValidation:rule="self > 0",message="must be positive"',
        "  // +kubebuilder:default=5",
        "  // +kubebuilder:validation:items:MaxLength=3",
        "  // +listType=set",
        "  // +optional",
        "  n?: Int32;",
      ].join("\n"),
    );
    const outcome = await runGenerate({ "api/types.ts": source });
    expect(outcome.error).toBeUndefined();
    const hints = outcome.diagnostics.filter((d) => d.code === "TSOP1038").map((d) => d.hint);
    expect(hints).toEqual([
      'tsop\'s equivalent: @validation rule="self > 0" message="must be positive"',
      "tsop's equivalent: @default 5",
      "tsop's equivalent: @items maxLength 3",
      "tsop's equivalent: @listType set",
      "tsop's equivalent: `?` on the property (or @optional)",
    ]);
  });

  it("TSOP1019 names 'tsop' and npm install when node_modules is missing (instead of generating nothing)", async () => {
    const source = resource("  a?: string;");
    const outcome = await runGenerate({
      "api/types.ts": source,
      "tsconfig.json": JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true },
        include: ["api"],
      }),
    });
    expectDiagnostic(outcome, "api/types.ts", source, "TSOP1019", '"tsop"', "cannot resolve module 'tsop'");
    expect(outcome.diagnostics.find((d) => d.code === "TSOP1019")?.hint).toContain("npm install");
    expect(outcome.error).toBeDefined();
    expect(outcome.after).toEqual(outcome.before);
  });

  it("reports every problem of a run, sorted by position, and writes nothing", async () => {
    const source = spec("  a: any;\n  b?: bigint;\n  /** @minimum x */\n  c?: Int32;");
    const outcome = await runGenerate({ "api/types.ts": source });
    expect(outcome.error).toBeDefined();
    expect(outcome.diagnostics.map((d) => d.code)).toEqual(["TSOP1011", "TSOP1012", "TSOP1032"]);
    expect(outcome.error?.message).toContain("found 3 errors; nothing was written");
    expect(outcome.error?.message).toMatch(/api\/types\.ts:\d+:\d+: error TSOP1011/);
    expect(outcome.after).toEqual(outcome.before);
  });

  it("ignores tags of other tools and standard JSDoc tags", async () => {
    const outcome = await runGenerate({
      "api/types.ts": spec(
        "  /**\n   * @deprecated old\n   * @remarks none\n   * @openapiExtra foo\n   */\n  a?: string;",
      ),
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome.diagnostics).toEqual([]);
  });
});

describe("more diagnostics", () => {
  it("TSOP1002 a tsop class decorator without @CustomResource", async () => {
    const source = ['import { Status } from "tsop";', "@Status()", "export class Lonely {}", ""].join("\n");
    const outcome = await runGenerate({ "api/types.ts": source });
    expectDiagnostic(
      outcome,
      "api/types.ts",
      source,
      "TSOP1002",
      "@Status()",
      "@Status: needs @CustomResource on the same class",
    );
    expect(outcome.after).toEqual(outcome.before);
  });

  it("TSOP1063 --derive-rbac cannot resolve a wiring argument (warning)", async () => {
    const api = resource("  a?: string;", { decorators: "@Status()" }).replace(
      "KubeObject<ThingSpec>",
      "KubeObject<ThingSpec, { ok?: boolean }>",
    );
    const main = [
      'import { Rbac } from "tsop";',
      'import { Thing } from "../api/types.js";',
      '@Rbac({ groups: [""], resources: ["events"], verbs: ["create"] })',
      "export class R {}",
      "declare const manager: any;",
      "declare function pick(): { apiVersion: string; kind: string };",
      "manager.controller(Thing).owns(pick()).complete(new R());",
      "",
    ].join("\n");
    const outcome = await runGenerate(
      { "api/types.ts": api, "controllers/main.ts": main },
      { deriveRbac: true },
    );
    expect(outcome.error).toBeUndefined();
    expectDiagnostic(
      outcome,
      "controllers/main.ts",
      main,
      "TSOP1063",
      "pick()).complete",
      "--derive-rbac: cannot tell the resource for pick()",
    );
    const role = outcome.after["config/rbac/role.yaml"] ?? "";
    expect(role).toContain("things/finalizers");
  });
});

describe("output size", () => {
  it("warns (TSOP1070) about a CRD above 256 KiB and still writes it", async () => {
    const long = "This description is long on purpose, to make the CRD large. ".repeat(8);
    const fields = Array.from({ length: 700 }, (_, i) => `  /** ${long} */\n  field${i}?: string;`).join(
      "\n",
    );
    const outcome = await runGenerate({ "api/types.ts": resource(fields) });
    expect(outcome.error).toBeUndefined();
    const warning = outcome.diagnostics.find((d) => d.code === "TSOP1070");
    expect(warning?.message).toMatch(/things\.tsop\.dev_things\.yaml is \d+ KiB, above 256 KiB/);
    expect(outcome.reporter.text()).toContain("kubectl apply --server-side");
    expect(Object.keys(outcome.after)).toContain("config/crd/bases/things.tsop.dev_things.yaml");
  });
});
