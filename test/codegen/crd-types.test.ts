// `tsop generate types`: the TypeScript a CRD's schema becomes (the tricky corners asserted on the
// text, then the whole file type-checked), determinism, and bad input refused with nothing written.
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emitCrdTypes } from "../../src/codegen/types-from-crd/emit.js";
import { generateTypes } from "../../src/codegen/types-from-crd/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { parseYaml } from "../../src/common/yaml/read.js";
import { Client, loadKubeConfig, RestClient, RestMapper } from "../../src/runtime/index.js";
import { startTestCluster } from "../../src/testing/index.js";
import { crdFromObject } from "../../src/codegen/types-from-crd/read.js";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";
import { crdOf, typecheck } from "./crd-types-support.js";

const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

/** A spec with every corner the generator has a rule for. */
const TRICKY_SPEC = {
  type: "object",
  required: ["mode"],
  properties: {
    mode: { type: "string", enum: ["Fast", "Safe"], default: "Safe", description: "How it runs." },
    port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
    memory: {
      "x-kubernetes-int-or-string": true,
      anyOf: [{ type: "integer" }, { type: "string" }],
      pattern: QUANTITY_PATTERN,
    },
    limits: {
      type: "object",
      additionalProperties: { "x-kubernetes-int-or-string": true, pattern: QUANTITY_PATTERN },
    },
    labels: { type: "object", additionalProperties: { type: "string" } },
    rules: {
      type: "object",
      additionalProperties: { type: "object", properties: { weight: { type: "integer" } } },
    },
    raw: { "x-kubernetes-preserve-unknown-fields": true },
    extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    open: {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      properties: { known: { type: "string" } },
    },
    matrix: {
      type: "array",
      items: {
        type: "array",
        items: { type: "object", properties: { cell: { type: "integer", minimum: 0, maximum: 9 } } },
      },
    },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name", "protocol"],
      items: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, protocol: { type: "string", default: "TCP" } },
      },
    },
    fooBar: { type: "object", properties: { a: { type: "string" } } },
    foo: { type: "object", properties: { bar: { type: "object", properties: { b: { type: "string" } } } } },
    "dashed-key": { type: "string", nullable: true },
    comment: { type: "string", description: "Ends a comment */ early unless escaped." },
    template: {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
    },
    count: { type: "integer", format: "int32", minimum: 1, maximum: 5, default: 3 },
    when: { type: "string", format: "date-time" },
  },
};

const TRICKY = crdOf([
  {
    name: "v1",
    schema: {
      type: "object",
      description: "A Widget.",
      required: ["spec"],
      properties: {
        apiVersion: { type: "string" },
        kind: { type: "string" },
        metadata: { type: "object" },
        spec: TRICKY_SPEC,
        status: { type: "object", properties: { phase: { type: "string" } } },
      },
    },
  },
  {
    name: "v1beta1",
    deprecated: true,
    schema: {
      type: "object",
      properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
    },
  },
  { name: "v1alpha1", served: false, schema: { type: "object" } },
]);

function emit(crd: unknown): string {
  return emitCrdTypes(crdFromObject(crd, "widgets.yaml", "widgets.yaml"));
}

/** The declaration `export interface <name> {…}` of a generated text. */
function declaration(text: string, name: string): string {
  const start = text.indexOf(`export interface ${name} {`);
  expect(start, `no interface ${name} in:\n${text}`).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf("\n}\n", start) + 2);
}

describe("generate types: schema → TypeScript", () => {
  const text = emit(TRICKY);
  const spec = declaration(text, "V1WidgetSpec");

  it("types enums, int-or-string, quantities, maps, preserve-unknown and nullable fields", () => {
    expect(spec).toContain('  mode: "Fast" | "Safe";');
    expect(spec).toContain("  port?: number | string;");
    expect(spec).toContain("  memory?: Quantity;");
    expect(spec).toContain("  limits?: Record<string, Quantity>;");
    expect(text).toContain("export type Quantity = number | string;");
    expect(spec).toContain("  labels?: Record<string, string>;");
    expect(spec).toContain("  rules?: Record<string, V1WidgetSpecRulesValue>;");
    expect(spec).toContain("  raw?: unknown;");
    expect(spec).toContain("  extra?: Record<string, unknown>;");
    expect(spec).toContain("  open?: V1WidgetSpecOpen;");
    expect(declaration(text, "V1WidgetSpecOpen")).toMatch(
      /known\?: string;\n.*\n {2}\[key: string\]: unknown;/,
    );
    expect(spec).toContain('  "dashed-key"?: string | null;');
  });

  it("names nested objects after their path; arrays of arrays of objects; clashes get a number", () => {
    expect(spec).toContain("  matrix?: V1WidgetSpecMatrix[][];");
    expect(declaration(text, "V1WidgetSpecMatrix")).toContain("  cell?: number;");
    // spec.fooBar and spec.foo.bar both spell V1WidgetSpecFooBar: sorted walk, `foo` comes first.
    expect(spec).toContain("  fooBar?: V1WidgetSpecFooBar2;");
    expect(declaration(text, "V1WidgetSpecFoo")).toContain("  bar?: V1WidgetSpecFooBar;");
    expect(declaration(text, "V1WidgetSpecFooBar")).toContain("  b?: string;");
    expect(declaration(text, "V1WidgetSpecFooBar2")).toContain("  a?: string;");
  });

  it("writes defaults, bounds, formats and list-map keys as JSDoc, and escapes */", () => {
    expect(spec).toMatch(/\/\*\*\n {3}\* How it runs\.\n {3}\*\n {3}\* @default "Safe"\n {3}\*\/\n {2}mode:/);
    expect(spec).toMatch(/@format int32\n.*@minimum 1\n.*@maximum 5\n.*\*\/\n {2}count\?: number;/);
    expect(spec).toMatch(/@default 3\n/);
    expect(spec).toMatch(/@format date-time \*\/\n {2}when\?: string;/);
    expect(spec).toMatch(
      /@listType map\n.*@listMapKey name\n.*@listMapKey protocol\n.*\*\/\n {2}ports\?: V1WidgetSpecPorts\[\];/,
    );
    expect(declaration(text, "V1WidgetSpecPorts")).toMatch(
      / {2}name: string;\n[^]*@default "TCP" \*\/\n {2}protocol\?: string;/,
    );
    expect(spec).toContain("Ends a comment *\\/ early unless escaped.");
  });

  it("gives embedded resources apiVersion, kind and metadata", () => {
    const template = declaration(text, "V1WidgetSpecTemplate");
    expect(template).toContain("  apiVersion?: string;");
    expect(template).toContain("  kind?: string;");
    expect(template).toContain("  metadata?: ObjectMeta;");
    expect(template).toContain("  [key: string]: unknown;");
  });

  it("declares the object type and its KindRef per served version; required spec, optional status", () => {
    const object = declaration(text, "V1Widget");
    expect(object).toContain('  apiVersion: "example.com/v1";\n  kind: "Widget";\n  metadata: ObjectMeta;');
    expect(object).toContain("  spec: V1WidgetSpec;");
    expect(object).toContain("  status?: V1WidgetStatus;");
    expect(text).toMatch(
      /export const V1Widget: KindRef<V1Widget> & \{[^}]*\} = \{\n {2}apiVersion: "example\.com\/v1",\n {2}kind: "Widget",\n\};/,
    );
    expect(text).toContain("export const V1beta1Widget: KindRef<V1beta1Widget>");
    expect(text).toMatch(/@deprecated [^\n]*\n \*\/\nexport interface V1beta1Widget \{/);
    expect(text).not.toContain("V1alpha1"); // not served
    expect(text.split("\n").slice(0, 2).join("\n")).toBe(
      "// Code generated by `tsop generate types` from widgets.yaml: CustomResourceDefinition widgets.example.com. DO NOT EDIT.\n" +
        "// Served versions: v1, v1beta1. Regenerate instead of editing.",
    );
  });

  it("does not depend on the order of the schema's keys", () => {
    const reversed = structuredClone(TRICKY) as {
      spec: {
        versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } } }>;
      };
    };
    const props = reversed.spec.versions[0]!.schema.openAPIV3Schema.properties.spec;
    props.properties = Object.fromEntries(Object.entries(props.properties).reverse());
    expect(emit(reversed)).toBe(text);
  });

  it("compiles under strict options, and a wrong value does not", async () => {
    const dir = await testdir({
      "package.json": '{ "type": "module" }',
      "widgets.example.com.ts": text,
      "use.ts": [
        'import { V1Widget, type V1WidgetSpec } from "./widgets.example.com.js";',
        "const spec: V1WidgetSpec = {",
        '  mode: "Fast", port: "http", memory: "512Mi", limits: { cpu: 2 }, raw: [1, "x"],',
        '  extra: { any: true }, open: { known: "k", other: 1 }, matrix: [[{ cell: 1 }]],',
        '  ports: [{ name: "web" }], "dashed-key": null, template: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } },',
        "};",
        'export const w: V1Widget = { apiVersion: V1Widget.apiVersion, kind: V1Widget.kind, metadata: { name: "w" }, spec };',
        "// @ts-expect-error: not one of the enum's values",
        'export const bad: V1WidgetSpec = { mode: "Slow" };',
        "",
      ].join("\n"),
    });
    expect(typecheck([join(dir, "use.ts")])).toBe("");
    await writeFile(
      join(dir, "use.ts"),
      'import type { V1WidgetSpec } from "./widgets.example.com.js";\nexport const s: V1WidgetSpec = { mode: "Slow" };\n',
    );
    expect(typecheck([join(dir, "use.ts")])).toContain(
      `Type '"Slow"' is not assignable to type '"Fast" | "Safe"'`,
    );
  });
});

describe("tsop generate types (CLI)", { timeout: 60_000 }, () => {
  const GOOD = JSON.stringify(TRICKY);

  it("writes one file per CRD; two runs in different directories give the same bytes", async () => {
    const a = await testdir({ "crds/widgets.yaml": GOOD });
    const b = await testdir({ "crds/widgets.yaml": GOOD });
    const first = await runTsop(
      ["generate", "types", "--from-crd", "crds/widgets.yaml", "--out", "src/types"],
      { cwd: a },
    );
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain("created src/types/widgets.example.com.ts (widgets.example.com)");
    expect(
      (
        await runTsop(["generate", "types", "--from-crd", "crds/widgets.yaml", "--out", "src/types"], {
          cwd: b,
        })
      ).exitCode,
    ).toBe(0);
    const treeA = await readTree(a);
    expect(treeA).toEqual(await readTree(b));
    expect(treeA["src/types/widgets.example.com.ts"]).toBe(
      emitCrdTypes(crdFromObject(TRICKY, "x", "crds/widgets.yaml")),
    );
    const again = await runTsop(
      ["generate", "types", "--from-crd", "crds/widgets.yaml", "--out", "src/types"],
      { cwd: a },
    );
    expect(again.stderr).toContain("unchanged src/types/widgets.example.com.ts");
    expect(await readTree(a)).toEqual(treeA);
  });

  it("--check writes nothing and exits 1 with a diff while the files are out of date, 0 once current", async () => {
    const dir = await testdir({ "crds/widgets.yaml": GOOD });
    const args = ["generate", "types", "--from-crd", "crds/widgets.yaml", "--out", "src/types"];
    const missing = await runTsop([...args, "--check"], { cwd: dir });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("1 generated types file(s) are out of date");
    expect(missing.stdout).toContain("+++ b/src/types/widgets.example.com.ts");
    expect(Object.keys(await readTree(dir))).toEqual(["crds/widgets.yaml"]);
    expect((await runTsop(args, { cwd: dir })).exitCode).toBe(0);
    // The flag before the subcommand's name works too, as for `generate --check crds`.
    const current = await runTsop(["generate", "--check", ...args.slice(1)], { cwd: dir });
    expect(current.exitCode, current.stderr).toBe(0);
    expect(current.stderr).toContain("the types of 1 CRD(s) are up to date");
    const file = join(dir, "src/types/widgets.example.com.ts");
    await writeFile(file, `${await readFile(file, "utf8")}// edited by hand\n`);
    const drift = await runTsop([...args, "--check"], { cwd: dir });
    expect(drift.exitCode).toBe(1);
    expect(drift.stdout).toMatch(/^-\/\/ edited by hand$/m);
    expect(await readFile(file, "utf8")).toContain("// edited by hand");
  });

  it.each([
    [
      "not a CRD",
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
      /bad\.yaml: not a CustomResourceDefinition \(kind: "ConfigMap"\)/,
    ],
    [
      "no served version",
      JSON.stringify(crdOf([{ name: "v1", served: false, schema: { type: "object" } }])),
      /bad\.yaml: CustomResourceDefinition widgets\.example\.com: no version is served/,
    ],
    ["invalid YAML", "apiVersion: [unclosed\nkind: x\n", /bad\.yaml:\d+:\d+/],
    [
      "a v1beta1 CRD",
      "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n",
      /bad\.yaml: apiVersion "apiextensions\.k8s\.io\/v1beta1" is not supported/,
    ],
    ["an empty file", "# nothing\n", /bad\.yaml: the file holds no YAML document/],
  ])("refuses %s naming the file, exits non-zero and writes nothing", async (_what, content, message) => {
    // A good CRD first: nothing of it may be written either.
    const dir = await testdir({ "good.yaml": GOOD, "bad.yaml": content });
    const run = await runTsop(
      ["generate", "types", "--from-crd", "good.yaml", "--from-crd", "bad.yaml", "--out", "out"],
      { cwd: dir },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(Object.keys(await readTree(dir)).sort()).toEqual(["bad.yaml", "good.yaml"]);
  });

  it("refuses a missing file and a call without input", async () => {
    const dir = await testdir({});
    const missing = await runTsop(["generate", "types", "--from-crd", "nope.yaml"], { cwd: dir });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("nope.yaml: no such file");
    const none = await runTsop(["generate", "types"], { cwd: dir });
    expect(none.exitCode).not.toBe(0);
    expect(none.stderr).toContain("pass --from-crd <file> or --from-cluster <crd name>");
  });
});

describe("generate types --from-cluster (in-memory API server)", { timeout: 60_000 }, () => {
  it("reads the CRD through the kubeconfig: the same types as from its file; a CRD it lacks is named", async () => {
    const file = join(REPO_ROOT, "fixtures/crd-types/cert-manager/certificates.cert-manager.io.yaml");
    const cluster = await startTestCluster();
    const rest = new RestClient(cluster.url, await loadKubeConfig({ kubeconfigText: cluster.kubeconfig }));
    try {
      await new Client(rest, new RestMapper(rest)).create(
        parseYaml(readFileSync(file, "utf8"), file) as { metadata: object },
      );
      const dir = await testdir({});
      const options = { cwd: dir, cluster: { kubeconfig: cluster.kubeconfigPath } };
      await generateTypes(
        { ...options, fromCluster: ["certificates.cert-manager.io"], out: "a" },
        new MemoryReporter(),
      );
      await generateTypes({ cwd: dir, fromCrd: [file], out: "b" }, new MemoryReporter());
      const fromCluster = await readFile(join(dir, "a/certificates.cert-manager.io.ts"), "utf8");
      const fromFile = await readFile(join(dir, "b/certificates.cert-manager.io.ts"), "utf8");
      expect(fromCluster.split("\n")[0]).toContain(
        "from the cluster: CustomResourceDefinition certificates.cert-manager.io.",
      );
      expect(fromCluster.split("\n").slice(1)).toEqual(fromFile.split("\n").slice(1));
      await expect(
        generateTypes(
          { ...options, fromCluster: ["servicemonitors.monitoring.coreos.com"], out: "c" },
          new MemoryReporter(),
        ),
      ).rejects.toThrow("the cluster has no CustomResourceDefinition servicemonitors.monitoring.coreos.com");
      expect(Object.keys(await readTree(dir)).sort()).toEqual([
        "a/certificates.cert-manager.io.ts",
        "b/certificates.cert-manager.io.ts",
      ]);
    } finally {
      rest.close();
      await cluster.stop();
    }
  });
});
