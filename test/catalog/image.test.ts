// `tsop catalog image` as a user runs it against a real registry on 127.0.0.1, on a small stand-in
// base (the real opm base is exercised by the real tier): the FBC under /configs in one layer with
// fixed metadata, opm's entrypoint and the index label, the base pinned by digest; the same catalog
// gives the same digest (and byte-identical OCI layouts), another SOURCE_DATE_EPOCH another one.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runTsop } from "../support/cli.js";
import { pushTestImage, skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { readTree, testdir } from "../support/testdir.js";
import { CORPUS } from "./graph-corpus.js";

let registry: TestRegistry;
let baseDigest: string;
const CATALOG = CORPUS[0]!.catalog;

beforeAll(async () => {
  registry = await startRegistry();
  baseDigest = await pushTestImage(registry, "opm-base", "v1", {
    layers: [
      [
        { path: "bin/", type: "directory" },
        { path: "bin/opm", content: "#!/bin/sh\necho stand-in\n", mode: 0o755 },
      ],
    ],
    runConfig: { Entrypoint: ["/bin/opm"], User: "65532:65532", Env: ["PATH=/bin"] },
  });
}, 60_000);
afterAll(() => registry?.stop());

const base = () => `${registry.host}/opm-base:v1`;
const image = (dir: string, args: string[], env: Record<string, string> = {}) =>
  runTsop(["catalog", "image", ...args, `--plain-http=${registry.host}`], { cwd: dir, env });

describe("tsop catalog image", () => {
  test("pushes a reproducible image: /configs, opm serve, the index label, the base by digest", async () => {
    const dir = await testdir({ "catalog/configs/widget/catalog.yaml": CATALOG });
    const ref = `${registry.host}/widget-catalog:v1`;
    const first = await image(dir, [ref, "--base", base()]);
    expect(first.exitCode, first.stderr).toBe(0);
    // Printed pinned by digest, ready for a CatalogSource's spec.image.
    expect(first.stdout.startsWith(`${registry.host}/widget-catalog@sha256:`)).toBe(true);
    const digest = first.stdout.trim().split("@")[1];

    const inspect = await skopeoInspect(registry, "widget-catalog:v1");
    expect(inspect.Digest).toBe(digest);
    expect(inspect.Labels).toMatchObject({
      "operators.operatorframework.io.index.configs.v1": "/configs",
      "org.opencontainers.image.base.digest": baseDigest,
      "org.opencontainers.image.base.name": `${registry.host}/opm-base`,
    });
    const config = JSON.parse(
      (await execa("skopeo", ["inspect", "--config", "--tls-verify=false", `docker://${ref}`])).stdout,
    );
    expect(config.config.Entrypoint).toEqual(["/bin/opm"]);
    expect(config.config.Cmd).toEqual(["serve", "/configs"]);
    expect(config.config.User).toBe("65532:65532");
    expect(config.rootfs.diff_ids).toHaveLength(2);

    // The same catalog again (and through TSOP_CATALOG_BASE): the same digest.
    const again = await image(dir, [`${registry.host}/widget-catalog:v1-again`], {
      TSOP_CATALOG_BASE: base(),
    });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout.trim().split("@")[1]).toBe(digest);
    const later = await image(dir, [`${registry.host}/widget-catalog:v1-later`, "--base", base()], {
      SOURCE_DATE_EPOCH: "1700000000",
    });
    expect(later.exitCode, later.stderr).toBe(0);
    expect(later.stdout.trim().split("@")[1]).not.toBe(digest);
  });

  test("--oci-layout: byte-identical twice; the layer holds exactly the FBC with fixed metadata", async () => {
    const dir = await testdir({ "catalog/configs/widget/catalog.yaml": CATALOG });
    const layouts = [];
    for (const out of ["a", "b"]) {
      const run = await image(dir, [
        "widget-catalog:v1",
        "--base",
        base(),
        "--oci-layout",
        out,
        "-o",
        "json",
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      layouts.push({ tree: await readTree(join(dir, out)), result: JSON.parse(run.stdout) });
    }
    expect(layouts[0]!.tree).toEqual(layouts[1]!.tree);
    const { result } = layouts[0]!;
    expect(result.packages).toEqual(["widget"]);
    expect(result.files).toEqual(["configs", "configs/widget", "configs/widget/catalog.yaml"]);
    const index = JSON.parse(await readFile(join(dir, "a/index.json"), "utf8"));
    expect(index.manifests[0].digest).toBe(result.digest);
    const manifest = JSON.parse(await readFile(join(dir, "a/blobs/sha256", result.digest.slice(7)), "utf8"));
    const layer = join(dir, "a/blobs/sha256", manifest.layers[1].digest.slice(7));
    const listing = (await execa("tar", ["-tzvf", layer, "--numeric-owner"])).stdout.split("\n");
    expect(listing).toHaveLength(3);
    for (const line of listing) expect(line).toMatch(/ 0\/0 .* 1970-01-01 00:00 configs/);
    const content = (await execa("tar", ["-xzOf", layer, "configs/widget/catalog.yaml"])).stdout;
    expect(`${content}\n`).toBe(CATALOG);
  });

  test("refusals: an empty catalog, a layout dir holding other files, an unreadable base", async () => {
    const empty = await testdir({ "catalog/configs/.keep": "" });
    const none = await image(empty, [`${registry.host}/x:v1`, "--base", base()]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain("holds no olm.package blob");

    const dir = await testdir({ "catalog/configs/widget/catalog.yaml": CATALOG });
    const layout = await image(dir, ["x:v1", "--base", base(), "--oci-layout", "catalog"]);
    expect(layout.exitCode).toBe(2);
    expect(layout.stderr).toContain("--oci-layout");
    expect(Object.keys(await readTree(join(dir, "catalog")))).toEqual(["configs/widget/catalog.yaml"]);

    const missing = await image(dir, [`${registry.host}/x:v1`, "--base", `${registry.host}/no-such-base:v1`]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("cannot read the catalog's base image");
    expect(missing.stderr).toContain("TSOP_CATALOG_BASE");
  });

  test("refuses a base that cannot serve the catalog (no opm at its entrypoint), before writing anything", async () => {
    // The bed's Node base, in small: node at the entrypoint, no opm.
    await pushTestImage(registry, "base/node", "20", {
      layers: [[{ path: "usr/local/bin/node", content: "#!/bin/sh\n", mode: 0o755 }]],
      runConfig: { Entrypoint: ["/usr/local/bin/node"], Env: ["PATH=/usr/local/bin"] },
    });
    const nodeBase = `${registry.host}/base/node:20`;
    const dir = await testdir({ "catalog/configs/widget/catalog.yaml": CATALOG });
    const pushed = await image(dir, [`${registry.host}/nodebased-catalog:v1`, "--base", nodeBase]);
    expect(pushed.exitCode).toBe(1);
    expect(pushed.stdout).toBe("");
    expect(pushed.stderr).toContain(`${nodeBase} cannot serve a catalog`);
    expect(pushed.stderr).toContain('its entrypoint is ["/usr/local/bin/node"], not opm');
    expect(pushed.stderr).toContain("--base");
    expect(pushed.stderr).toContain("TSOP_CATALOG_BASE");
    await expect(skopeoInspect(registry, "nodebased-catalog:v1")).rejects.toThrow();

    const layout = await image(dir, ["x:v1", "--base", nodeBase, "--oci-layout", "out"]);
    expect(layout.exitCode).toBe(1);
    expect(Object.keys(await readTree(dir))).toEqual(["catalog/configs/widget/catalog.yaml"]);
  });
});
