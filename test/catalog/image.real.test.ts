// The catalog image on an opm base (the rig's opm in an image this test assembles), read back by
// the real tools: `opm render <image>` from the registry on 127.0.0.1 gives the rendered catalog,
// `skopeo inspect` shows the index label, and building it twice gives the same digest. The image's
// own opm serving it under OLM is test/catalog/olm.real.test.ts.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { runTsop } from "../support/cli.js";
import { opmRender } from "../support/opm.js";
import { skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";
import { csvName, PKG, pushBundle } from "./bundles.js";
import { pushOpmBase } from "./opm-base.js";

let registry: TestRegistry;
let base: string;
const images: string[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  base = await pushOpmBase(registry);
  images.push(await pushBundle(registry, { version: "0.0.1" }));
  images.push(await pushBundle(registry, { version: "0.0.2", replaces: csvName("0.0.1") }));
}, 180_000);
afterAll(() => registry?.stop());

const parse = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);

describe("the catalog image, read by opm and skopeo", () => {
  test(
    "opm render reads the pushed image; the label is there; the digest is the same twice",
    { timeout: 240_000 },
    async () => {
      const dir = await testdir();
      const plain = `--plain-http=${registry.host}`;
      for (const image of images) {
        const add = await runTsop(["catalog", "add", image, plain], { cwd: dir });
        expect(add.exitCode, add.stderr).toBe(0);
      }
      const render = await runTsop(["catalog", "render", plain], { cwd: dir });
      expect(render.exitCode, render.stderr).toBe(0);
      const ref = `${registry.host}/widget-catalog:v0.0.2`;
      const built = await runTsop(["catalog", "image", ref, "--base", base, plain], { cwd: dir });
      expect(built.exitCode, built.stderr).toBe(0);
      const pinned = built.stdout.trim();

      const rendered = parse(await readFile(join(dir, "catalog/configs", PKG, "catalog.yaml"), "utf8"));
      expect(await opmRender([pinned], { useHttp: true })).toEqual(rendered);

      const inspect = await skopeoInspect(registry, "widget-catalog:v0.0.2");
      expect(inspect.Labels?.["operators.operatorframework.io.index.configs.v1"]).toBe("/configs");
      expect(`${registry.host}/widget-catalog@${inspect.Digest}`).toBe(pinned);

      const again = await runTsop(
        ["catalog", "image", `${registry.host}/widget-catalog:again`, "--base", base, plain],
        {
          cwd: dir,
        },
      );
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe(pinned);
    },
  );
});
