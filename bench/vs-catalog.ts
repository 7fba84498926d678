#!/usr/bin/env -S npx tsx
// Catalog rendering side by side: `tsop catalog render` against `opm alpha render-template basic`
// (the rig's opm v1.47.0) for the same basic template of BENCH_BUNDLES bundles (default 10, a
// replaces chain), every bundle image in a real docker-registry on 127.0.0.1; each run's output is
// checked (the same blobs as data). Then `tsop catalog image` of that catalog on an opm base (the
// rig's opm in an image assembled here) to the same registry, timed alone: opm has no
// container-engine-free image build to set beside it (`opm generate dockerfile` writes a Dockerfile
// for docker/podman/buildah; `opm index add` drives them too), and this machine has none. The last
// image is read back with `opm render` and must equal the rendered catalog.
// BENCH_RUNS (default 5). Run: npm run bench:vs-catalog
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { TSOP_BIN } from "../test/support/cli.js";
import { opmRender } from "../test/support/opm.js";
import { startRegistry } from "../test/support/registry.js";
import { csvName, PKG, pushBundle } from "../test/catalog/bundles.js";
import { pushOpmBase } from "../test/catalog/opm-base.js";
import { linkRigAssets } from "./rig-assets.js";
import { fail, interleave, main, ok, report, rigBinary, timed } from "./side-by-side.js";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const bundles = Number(process.env.BENCH_BUNDLES ?? 10);

const asData = (text: string) => JSON.stringify(parseAllDocuments(text).map((d) => d.toJS()));

main(async () => {
  linkRigAssets();
  const registry = await startRegistry();
  const work = mkdtempSync(join(tmpdir(), "tsop-bench-catalog-"));
  try {
    const base = await pushOpmBase(registry);
    const images: string[] = [];
    for (let i = 1; i <= bundles; i++) {
      const version = `0.${i}.0`;
      images.push(
        await pushBundle(registry, { version, ...(i > 1 ? { replaces: csvName(`0.${i - 1}.0`) } : {}) }),
      );
    }
    const template = join(work, "template.yaml");
    writeFileSync(
      template,
      JSON.stringify({
        schema: "olm.template.basic",
        entries: [
          { schema: "olm.package", name: PKG, defaultChannel: "stable" },
          {
            schema: "olm.channel",
            package: PKG,
            name: "stable",
            entries: images.map((_, i) => ({
              name: csvName(`0.${i + 1}.0`),
              ...(i > 0 ? { replaces: csvName(`0.${i}.0`) } : {}),
            })),
          },
          ...images.map((image) => ({ schema: "olm.bundle", image })),
        ],
      }),
    );
    const plain = `--plain-http=${registry.host}`;
    const configs = join(work, "configs");
    const render = await interleave(runs, 1, async () => {
      const tsop = ok(
        "tsop catalog render",
        await timed(process.execPath, [
          TSOP_BIN,
          "catalog",
          "render",
          "--template",
          template,
          "--out",
          configs,
          plain,
        ]),
      );
      const opm = ok(
        "opm alpha render-template basic",
        await timed(rigBinary("opm"), [
          "alpha",
          "render-template",
          "basic",
          template,
          "-o",
          "yaml",
          "--use-http",
        ]),
      );
      const ours = readFileSync(join(configs, PKG, "catalog.yaml"), "utf8");
      if (asData(ours) !== asData(opm.stdout)) fail("tsop catalog render and opm render-template disagree");
      return { tsop: tsop.ms, "opm render-template": opm.ms };
    });
    let pinned = "";
    const image = await interleave(runs, 1, async (run) => {
      const built = ok(
        "tsop catalog image",
        await timed(process.execPath, [
          TSOP_BIN,
          "catalog",
          "image",
          `${registry.host}/bench/catalog:run-${run}`,
          "--dir",
          configs,
          "--base",
          base,
          plain,
        ]),
      );
      const printed = built.stdout.trim();
      if (pinned && printed.split("@")[1] !== pinned.split("@")[1])
        fail("the catalog image digest changed between runs");
      pinned = printed;
      return { tsop: built.ms };
    });
    const served = JSON.stringify(await opmRender([pinned], { useHttp: true }));
    if (served !== asData(readFileSync(join(configs, PKG, "catalog.yaml"), "utf8")))
      fail("opm render of the catalog image differs from the rendered catalog");
    report({
      benchmark: `tsop catalog render vs opm alpha render-template basic (${bundles} bundles), and tsop catalog image`,
      runs,
      peers: ["opm render-template"],
      cases: [
        { label: `render: ${bundles} bundle images from a registry on 127.0.0.1`, samples: render },
        { label: "catalog image on an opm base (62 MB), pushed to the same registry", samples: image },
      ],
      notes: [
        "no peer for the image build: opm builds catalog images only through a container engine",
        "each run re-reads every bundle image (neither tool caches pulls between runs)",
      ],
    });
  } finally {
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
