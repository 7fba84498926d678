// `tsop catalog add` and `tsop catalog render` as a user runs them, against bundle images in a real
// registry on 127.0.0.1: the basic template grows entry by entry (replacing the channel head), the
// semver template keeps its lists in version order, the rendered FBC is deterministic and checked,
// and bad templates are refused with the file and field named, nothing written.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { readTree, testdir } from "../support/testdir.js";
import { csvName, PKG, pushBundle } from "./bundles.js";

let registry: TestRegistry;
const images: Record<string, string> = {};

beforeAll(async () => {
  registry = await startRegistry();
  for (const version of ["0.0.1", "0.0.2", "0.1.0", "1.0.0"])
    images[version] = await pushBundle(registry, { version, channels: ["alpha"] });
}, 120_000);
afterAll(() => registry?.stop());

const tsop = (cwd: string, args: string[]) => runTsop([...args, `--plain-http=${registry.host}`], { cwd });
const TEMPLATE = "catalog/template.yaml";
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- blobs are read field by field below
type Blob = Record<string, any>;
const blobs = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Blob);

describe("tsop catalog add + render, basic template", () => {
  test("each add appends an entry replacing the head; render writes deterministic, valid FBC", async () => {
    const dir = await testdir();
    for (const v of ["0.0.1", "0.0.2"]) {
      const add = await tsop(dir, ["catalog", "add", images[v]!]);
      expect(add.exitCode, add.stderr).toBe(0);
    }
    const written = await readFile(join(dir, TEMPLATE), "utf8");
    // Block style, one field a line, as people read, review and diff it (not one flow-style line).
    expect(written).toMatch(/^entries:\n {2}- schema: olm\.package\n/m);
    expect(written.split("\n").filter((line) => line.length > 120 || /[[{]/.test(line))).toEqual([]);
    const template = parse(written);
    expect(template.schema).toBe("olm.template.basic");
    expect(template.entries).toEqual([
      { schema: "olm.package", name: PKG, defaultChannel: "alpha" },
      {
        schema: "olm.channel",
        package: PKG,
        name: "alpha",
        entries: [{ name: csvName("0.0.1") }, { name: csvName("0.0.2"), replaces: csvName("0.0.1") }],
      },
      { schema: "olm.bundle", image: images["0.0.1"] },
      { schema: "olm.bundle", image: images["0.0.2"] },
    ]);
    // A user's comment survives, and adding the same bundle again changes nothing.
    const text = `# released bundles\n${await readFile(join(dir, TEMPLATE), "utf8")}`;
    await writeFile(join(dir, TEMPLATE), text);
    const again = await tsop(dir, ["catalog", "add", images["0.0.2"]!]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain("already in");
    expect(await readFile(join(dir, TEMPLATE), "utf8")).toBe(text);
    const third = await tsop(dir, ["catalog", "add", images["0.1.0"]!]);
    expect(third.exitCode, third.stderr).toBe(0);
    expect(await readFile(join(dir, TEMPLATE), "utf8")).toMatch(/^# released bundles\n/);

    const render = await tsop(dir, ["catalog", "render"]);
    expect(render.exitCode, render.stderr).toBe(0);
    const file = join(dir, "catalog/configs", PKG, "catalog.yaml");
    const first = await readFile(file, "utf8");
    const docs = blobs(first);
    expect(docs.map((d) => `${d.schema} ${d.name}`)).toEqual([
      `olm.package ${PKG}`,
      "olm.channel alpha",
      `olm.bundle ${csvName("0.0.1")}`,
      `olm.bundle ${csvName("0.0.2")}`,
      `olm.bundle ${csvName("0.1.0")}`,
    ]);
    const b = docs[3]!;
    expect(b.image).toBe(images["0.0.2"]);
    expect(b.properties.map((p: { type: string }) => p.type)).toEqual([
      "olm.gvk",
      "olm.package",
      "olm.bundle.object",
      "olm.bundle.object",
    ]);
    // The bundle image and the operator image, sorted by image as opm sorts them.
    expect(b.relatedImages).toEqual(
      ["127.0.0.1:5000/widget-operator:v0.0.2", images["0.0.2"]!]
        .sort()
        .map((image) => ({ name: "", image })),
    );
    expect((await tsop(dir, ["catalog", "render"])).exitCode).toBe(0);
    expect(await readFile(file, "utf8")).toBe(first);
    const validate = await runTsop(["catalog", "validate"], { cwd: dir });
    expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stderr).toContain("0 error(s), 0 warning(s)");
  });
});

describe("tsop catalog add + render, semver template", () => {
  test("bundles are listed by version; channels and the default channel come from versions", async () => {
    const dir = await testdir();
    for (const v of ["1.0.0", "0.0.1", "0.1.0", "0.0.2"]) {
      const add = await tsop(dir, ["catalog", "add", images[v]!, "--semver", "--channel", "stable"]);
      expect(add.exitCode, add.stderr).toBe(0);
    }
    const template = parse(await readFile(join(dir, TEMPLATE), "utf8"));
    expect(template.schema).toBe("olm.semver");
    expect(template.stable.bundles).toEqual(
      ["0.0.1", "0.0.2", "0.1.0", "1.0.0"].map((v) => ({ image: images[v] })),
    );
    const render = await tsop(dir, ["catalog", "render", "--out", "-"]);
    expect(render.exitCode, render.stderr).toBe(0);
    const docs = blobs(render.stdout);
    expect(docs[0]).toEqual({ schema: "olm.package", name: PKG, defaultChannel: "stable-v1.0" });
    expect(docs.filter((d) => d.schema === "olm.channel").map((d) => [d.name, d.entries])).toEqual([
      ["stable-v0.0", [{ name: csvName("0.0.1") }, { name: csvName("0.0.2"), skips: [csvName("0.0.1")] }]],
      ["stable-v0.1", [{ name: csvName("0.1.0") }]],
      ["stable-v1.0", [{ name: csvName("1.0.0") }]],
    ]);
    const wrong = await tsop(dir, ["catalog", "add", images["0.0.1"]!, "--channel", "beta"]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain("candidate, fast, stable");
  });
});

describe("bad templates and outputs are refused, nothing written", () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      "an unknown schema",
      "schema: olm.template.fancy\nentries: []\n",
      /template\.yaml: schema "olm\.template\.fancy" is not a catalog template/,
    ],
    [
      "a basic bundle with more than an image",
      "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: x.io/b:v1\n  properties: []\n",
      /entries\[0\] \(olm\.bundle x\.io\/b:v1\) has properties/,
    ],
    [
      "a semver list item without image",
      "schema: olm.semver\nstable:\n  bundles:\n  - name: x\n",
      /stable\.bundles\[0\] must be \{image: <bundle image>\}/,
    ],
    ["not YAML", "schema: [\n", /template\.yaml: not valid YAML/],
  ];
  for (const [label, text, message] of cases) {
    test(label, async () => {
      const dir = await testdir({ [TEMPLATE]: text });
      const run = await tsop(dir, ["catalog", "render"]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(Object.keys(await readTree(dir))).toEqual([TEMPLATE]);
    });
  }

  test("a missing template says how to start one", async () => {
    const dir = await testdir();
    const run = await tsop(dir, ["catalog", "render"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("catalog/template.yaml does not exist");
    expect(run.stderr).toContain("tsop catalog add");
  });

  test("an output directory holding other files is not replaced", async () => {
    const dir = await testdir({ "catalog/configs/notes.txt": "mine\n" });
    expect((await tsop(dir, ["catalog", "add", images["0.0.1"]!])).exitCode).toBe(0);
    const run = await tsop(dir, ["catalog", "render"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("notes.txt is not a <package>/catalog.yaml");
    expect(await readFile(join(dir, "catalog/configs/notes.txt"), "utf8")).toBe("mine\n");
  });

  test("an image that is not a bundle is named", async () => {
    const dir = await testdir();
    const run = await tsop(dir, ["catalog", "add", `${registry.host}/nothing:v1`]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`${registry.host}/nothing:v1`);
    expect(Object.keys(await readTree(dir))).toEqual([]);
  });
});
