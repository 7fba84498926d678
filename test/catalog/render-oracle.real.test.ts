// The rendered catalog against opm itself (the rig's opm, operator-registry v1.47.0): for the same
// basic and semver templates, `tsop catalog render` gives the same blobs as
// `opm alpha render-template basic|semver` (compared as data), `opm validate` accepts the result,
// and `tsop catalog graph` prints what `opm alpha render-graph` prints.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { runTsop } from "../support/cli.js";
import { opmValidate } from "../support/opm.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { rigBinary } from "../support/rig.js";
import { testdir } from "../support/testdir.js";
import { csvName, pushBundle } from "./bundles.js";

let registry: TestRegistry;
const images: Record<string, string> = {};

beforeAll(async () => {
  registry = await startRegistry();
  const specs = [
    { version: "0.0.1", relatedImages: [{ name: "tool", image: "quay.io/zz/tool:1" }] },
    { version: "0.0.2", replaces: csvName("0.0.1") },
    { version: "0.1.0", replaces: csvName("0.0.2"), skipRange: ">=0.0.1 <0.1.0" },
    { version: "0.1.1", replaces: csvName("0.1.0"), skips: [csvName("0.0.2")] },
    { version: "1.0.0", replaces: csvName("0.1.1"), crdVersions: ["v1", "v2"] },
  ];
  for (const spec of specs) images[spec.version] = await pushBundle(registry, spec);
}, 120_000);
afterAll(() => registry?.stop());

const parse = (text: string) =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Record<string, unknown> | null)
    .filter((d) => d !== null);

async function opmTemplate(kind: "basic" | "semver", file: string) {
  const result = await execa(
    rigBinary("opm"),
    ["alpha", "render-template", kind, file, "-o", "yaml", "--use-http"],
    {
      reject: false,
      timeout: 120_000,
    },
  );
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout;
}

async function tsopRender(dir: string, template: string) {
  const run = await runTsop(
    ["catalog", "render", "--template", template, "--out", "-", `--plain-http=${registry.host}`],
    {
      cwd: dir,
    },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  return run.stdout;
}

function basicTemplate(): string {
  const b = (v: string) => ({ schema: "olm.bundle", image: images[v] });
  return JSON.stringify({
    schema: "olm.template.basic",
    entries: [
      { schema: "olm.package", name: "widget-operator", defaultChannel: "stable", description: "Widgets." },
      {
        schema: "olm.channel",
        package: "widget-operator",
        name: "stable",
        entries: [
          { name: csvName("0.0.1") },
          { name: csvName("0.0.2"), replaces: csvName("0.0.1") },
          { name: csvName("0.1.0"), replaces: csvName("0.0.2"), skipRange: ">=0.0.1 <0.1.0" },
          { name: csvName("0.1.1"), replaces: csvName("0.1.0"), skips: [csvName("0.0.2")] },
          { name: csvName("1.0.0"), replaces: csvName("0.1.1") },
        ],
      },
      {
        schema: "olm.channel",
        package: "widget-operator",
        name: "fast",
        entries: [{ name: csvName("1.0.0") }],
      },
      ...["0.0.1", "0.0.2", "0.1.0", "0.1.1", "1.0.0"].map(b),
    ],
  });
}

function semverTemplate(): string {
  const list = (...versions: string[]) => ({ bundles: versions.map((v) => ({ image: images[v] })) });
  return [
    "schema: olm.semver",
    "generateMajorChannels: true",
    "generateMinorChannels: true",
    `candidate: ${JSON.stringify(list("0.0.1", "0.0.2", "0.1.0", "0.1.1", "1.0.0"))}`,
    `fast: ${JSON.stringify(list("0.0.2", "0.1.1", "1.0.0"))}`,
    `stable: ${JSON.stringify(list("0.1.0", "0.0.1", "0.1.1"))}`,
    "",
  ].join("\n");
}

describe("tsop catalog render matches opm alpha render-template", () => {
  for (const [kind, template] of [
    ["basic", basicTemplate],
    ["semver", semverTemplate],
  ] as const) {
    test(
      `${kind} template: same blobs, opm validate accepts, same Mermaid graph`,
      { timeout: 240_000 },
      async () => {
        const dir = await testdir();
        const file = join(dir, "template.yaml");
        await writeFile(file, template());
        const ours = await tsopRender(dir, file);
        const theirs = await opmTemplate(kind, file);
        expect(parse(ours)).toEqual(parse(theirs));
        // Deterministic: the same template renders to the same bytes.
        expect(await tsopRender(dir, file)).toBe(ours);

        const render = await runTsop(
          ["catalog", "render", "--template", file, "--out", "configs", `--plain-http=${registry.host}`],
          {
            cwd: dir,
          },
        );
        expect(render.exitCode, render.stderr).toBe(0);
        const verdict = await opmValidate(join(dir, "configs"));
        expect(verdict.exitCode, verdict.output).toBe(0);

        const graph = await runTsop(["catalog", "graph", "configs"], { cwd: dir });
        expect(graph.exitCode, graph.stderr).toBe(0);
        const opmGraph = await execa(rigBinary("opm"), ["alpha", "render-graph", join(dir, "configs")], {
          reject: false,
        });
        expect(opmGraph.exitCode, opmGraph.stderr).toBe(0);
        expect(graph.stdout).toBe(`${opmGraph.stdout}\n`);
      },
    );
  }
});
