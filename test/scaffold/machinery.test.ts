// The scaffolding machinery on its own: marker inserts, collision policies, all-or-nothing writes,
// YAML list edits that keep comments.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executePlan } from "../../src/scaffold/machinery.js";
import { fragmentExists, insertAtMarker, markerComment } from "../../src/scaffold/markers.js";
import { addDeploymentEnv, appendToYamlList } from "../../src/scaffold/yaml-edit.js";
import { readTree, testdir } from "../support/testdir.js";

const MAIN = `import { a } from "a";
// +tsop:scaffold:imports

function main() {
  setup();
  // +tsop:scaffold:controllers
}
`;

describe("markers", () => {
  it("uses the comment syntax of the file type and refuses unknown types", () => {
    expect(markerComment("src/main.ts", "imports")).toBe("// +tsop:scaffold:imports");
    expect(markerComment("config/crd/kustomization.yaml", "crds")).toBe("# +tsop:scaffold:crds");
    expect(() => markerComment("notes.txt", "x")).toThrow(/no comment syntax for ".txt"/);
  });

  it("inserts above the marker with its indentation, once", () => {
    const once = insertAtMarker(MAIN, "src/main.ts", "controllers", ["await Foo.setup(manager);"]);
    expect(once).toContain("  await Foo.setup(manager);\n  // +tsop:scaffold:controllers");
    const twice = insertAtMarker(once, "src/main.ts", "controllers", ["await Foo.setup(manager);"]);
    expect(twice).toBe(once);
  });

  it("treats a fragment as present whatever its indentation", () => {
    expect(fragmentExists("  a();\n    b();\n", "a();\nb();")).toBe(true);
    expect(fragmentExists("a();\nc();\nb();\n", "a();\nb();")).toBe(false);
  });

  it("fails naming the file and the missing marker", () => {
    expect(() => insertAtMarker("const x = 1;\n", "src/main.ts", "controllers", ["x"])).toThrow(
      /src\/main.ts has no "\/\/ \+tsop:scaffold:controllers" line/,
    );
  });
});

describe("executePlan", () => {
  it("lists every collision and writes nothing", async () => {
    const dir = await testdir({ "a.txt": "mine\n", "b.txt": "mine too\n" });
    const actions = ["a.txt", "b.txt", "c.txt"].map((path) => ({
      kind: "template" as const,
      path,
      content: "scaffolded\n",
      ifExists: "error" as const,
    }));
    await expect(executePlan(actions, { root: dir, data: {} })).rejects.toThrow(
      /already exist with different content; nothing was written:\n {2}- a.txt\n {2}- b.txt/,
    );
    expect(await readTree(dir)).toEqual({ "a.txt": "mine\n", "b.txt": "mine too\n" });
  });

  it("keeps skip-policy files, reports --force overwrites, and leaves identical files unchanged", async () => {
    const dir = await testdir({ "README.md": "my readme\n", "x.ts": "old\n", "same.ts": "same\n" });
    const { files } = await executePlan(
      [
        { kind: "template", path: "README.md", content: "generated\n", ifExists: "skip" },
        { kind: "template", path: "x.ts", content: "new\n", ifExists: "error" },
        { kind: "template", path: "same.ts", content: "same\n", ifExists: "error" },
        { kind: "template", path: "new/file.ts", content: "fresh\n", ifExists: "error" },
      ],
      { root: dir, data: {}, force: true },
    );
    expect(files).toEqual([
      { path: "README.md", status: "skipped", note: "exists; kept as is" },
      { path: "new/file.ts", status: "created" },
      { path: "same.ts", status: "unchanged" },
      { path: "x.ts", status: "overwritten", note: "--force" },
    ]);
    expect(await readFile(join(dir, "README.md"), "utf8")).toBe("my readme\n");
    expect(await readFile(join(dir, "x.ts"), "utf8")).toBe("new\n");
  });

  it("fails on a missing file it must edit, before writing anything", async () => {
    const dir = await testdir({});
    await expect(
      executePlan(
        [
          { kind: "template", path: "a.ts", content: "a\n", ifExists: "error" },
          { kind: "insert", path: "src/main.ts", marker: "imports", fragments: ["x"], ifMissing: "error" },
        ],
        { root: dir, data: {} },
      ),
    ).rejects.toThrow(/must exist to be edited, but are missing:\n {2}- src\/main.ts/);
    expect(await readTree(dir)).toEqual({});
  });

  it("applies several edits of one file in order and writes it once", async () => {
    const dir = await testdir({ "src/main.ts": MAIN });
    const { files } = await executePlan(
      [
        {
          kind: "insert",
          path: "src/main.ts",
          marker: "imports",
          fragments: ['import { b } from "b";'],
          ifMissing: "error",
        },
        {
          kind: "insert",
          path: "src/main.ts",
          marker: "controllers",
          fragments: ["b();"],
          ifMissing: "error",
        },
      ],
      { root: dir, data: {} },
    );
    expect(files).toEqual([{ path: "src/main.ts", status: "updated" }]);
    const text = await readFile(join(dir, "src/main.ts"), "utf8");
    expect(text).toContain('import { b } from "b";\n// +tsop:scaffold:imports');
    expect(text).toContain("  b();\n  // +tsop:scaffold:controllers");
  });

  it("renders a real template strictly (a missing value is an error, not an empty string)", async () => {
    const dir = await testdir({});
    await expect(
      executePlan(
        [
          {
            kind: "template",
            path: "x.yaml",
            template: "init/config/rbac/role_binding.yaml.hbs",
            ifExists: "error",
          },
        ],
        {
          root: dir,
          data: {},
        },
      ),
    ).rejects.toThrow(
      /template init\/config\/rbac\/role_binding.yaml.hbs could not be rendered: .*projectName/,
    );
    await writeFile(join(dir, "keep"), "");
    expect(Object.keys(await readTree(dir))).toEqual(["keep"]);
  });
});

describe("appendToYamlList", () => {
  it("turns an empty flow list into a block list and keeps comments", () => {
    const text = "# top comment\nkind: Kustomization\nresources: [] # inline\n";
    const once = appendToYamlList(text, "k.yaml", "resources", "a.yaml");
    expect(once).toContain("# top comment");
    expect(once).toMatch(/resources:.*\n- a.yaml/);
    const twice = appendToYamlList(once, "k.yaml", "resources", "b.yaml");
    expect(twice).toMatch(/- a.yaml\n- b.yaml/);
    expect(appendToYamlList(twice, "k.yaml", "resources", "a.yaml")).toBe(twice);
  });

  it("keeps the user's entries and comments between them", () => {
    const text = "resources:\n- mine.yaml # keep me\n# a note\n- other.yaml\n";
    const out = appendToYamlList(text, "k.yaml", "resources", "new.yaml");
    expect(out).toBe("resources:\n- mine.yaml # keep me\n# a note\n- other.yaml\n- new.yaml\n");
  });

  it("refuses a key that is not a list, naming the file", () => {
    expect(() =>
      appendToYamlList("resources: nope\n", "config/crd/kustomization.yaml", "resources", "x"),
    ).toThrow("config/crd/kustomization.yaml: resources must be a list");
  });
});

describe("addDeploymentEnv", () => {
  const manifest = `apiVersion: v1
kind: Namespace
metadata:
  name: system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
spec:
  template:
    spec:
      containers:
      - name: sidecar
        image: x
      - name: manager # the operator
        image: controller:latest
`;

  it("adds the variable to the named container once, keeping the other documents and comments", () => {
    const once = addDeploymentEnv(manifest, "m.yaml", "manager", "RELATED_IMAGE_A", "a:1");
    expect(once).toContain("kind: Namespace");
    expect(once).toContain("---\n");
    expect(once).toContain(
      "- name: manager # the operator\n        image: controller:latest\n        env:\n        - name: RELATED_IMAGE_A\n          value: a:1\n",
    );
    expect(addDeploymentEnv(once, "m.yaml", "manager", "RELATED_IMAGE_A", "other:2")).toBe(once);
    const twice = addDeploymentEnv(once, "m.yaml", "manager", "RELATED_IMAGE_B", "b:1");
    expect(twice).toContain(
      "- name: RELATED_IMAGE_A\n          value: a:1\n        - name: RELATED_IMAGE_B\n          value: b:1\n",
    );
  });

  it("leaves a file without that container alone", () => {
    expect(addDeploymentEnv(manifest, "m.yaml", "operator", "RELATED_IMAGE_A", "a:1")).toBe(manifest);
  });
});
