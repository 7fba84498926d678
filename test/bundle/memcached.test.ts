// The memcached-like fixture bundles into exactly the expected files (the operator-sdk sample's
// file set and CSV structure), validates with only the minKubeVersion warning, and reruns are
// byte-identical.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { tsopVersion } from "../../src/common/version.js";
import { readTree } from "../support/testdir.js";
import { copyFixture, EPOCH, MEMCACHED, MEMCACHED_EXPECTED, tsop } from "./helpers.js";

const ARGS = [
  "bundle",
  "--skip-generate",
  "--version",
  "0.0.1",
  "--image",
  "quay.io/example/memcached-operator:v0.0.1",
];

/** The expected files name tsop's version in the builder annotation/label; normalise it. */
function normalise(text: string): string {
  return text.replaceAll(`tsop-v${tsopVersion()}`, "tsop-vX");
}

async function expectedTree(): Promise<Record<string, string>> {
  const tree = await readTree(MEMCACHED_EXPECTED);
  return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, normalise(v)]));
}

async function bundleTree(dir: string): Promise<Record<string, string>> {
  const tree = await readTree(join(dir, "bundle"));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tree)) out[`bundle/${k}`] = normalise(v);
  out["bundle.Dockerfile"] = normalise(await readFile(join(dir, "bundle.Dockerfile"), "utf8"));
  return out;
}

describe("memcached fixture", () => {
  test("bundles into the expected file set, CSV structure and bytes", async () => {
    const dir = await copyFixture(MEMCACHED);
    const run = await tsop(dir, ARGS, { SOURCE_DATE_EPOCH: EPOCH });
    expect(run.stderr).toContain("Bundle written to bundle (11 created");
    expect(run.exitCode).toBe(0);
    const expected = await expectedTree();
    const actual = await bundleTree(dir);
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
    for (const [file, text] of Object.entries(expected)) {
      if (file.endsWith(".yaml")) expect(parse(actual[file]!), file).toEqual(parse(text));
      expect(actual[file], file).toBe(text);
    }
    // Objects a bundle cannot carry are reported, not silently dropped.
    expect(run.stderr).toMatch(
      /not carried in the bundle: Namespace memcached-operator-system \(config\/manager\/manager.yaml\)/,
    );
    expect(run.stderr).toMatch(/not carried in the bundle: Certificate memcached-operator-serving-cert/);
    // --image changed no tracked file.
    expect(await readFile(join(dir, "config/manager/manager.yaml"), "utf8")).toContain(
      "image: controller:latest",
    );
  });

  test("validate passes with only the minKubeVersion warning, which goes away once it is set", async () => {
    const dir = await copyFixture(MEMCACHED);
    expect((await tsop(dir, ARGS)).exitCode).toBe(0);
    const first = await tsop(dir, ["bundle", "validate", "bundle", "-o", "json"]);
    expect(first.exitCode).toBe(0);
    const report = JSON.parse(first.stdout) as {
      passed: boolean;
      findings: Array<{ id: string; level: string; file: string; path: string }>;
    };
    expect(report.passed).toBe(true);
    expect(report.findings.map((f) => [f.id, f.level, f.file, f.path])).toEqual([
      ["CSV-10", "warning", "manifests/memcached-operator.clusterserviceversion.yaml", "spec.minKubeVersion"],
    ]);
    const strict = await tsop(dir, ["bundle", "validate", "bundle", "--strict"]);
    expect(strict.exitCode).toBe(1);
    expect(strict.stdout).toContain(
      "WARN  CSV-10  manifests/memcached-operator.clusterserviceversion.yaml: spec.minKubeVersion:",
    );

    const base = join(dir, "config/manifests/bases/memcached-operator.clusterserviceversion.yaml");
    await writeFile(
      base,
      (await readFile(base, "utf8")).replace(
        "  version: 0.0.0",
        "  minKubeVersion: 1.28.0\n  version: 0.0.0",
      ),
    );
    expect((await tsop(dir, ARGS)).exitCode).toBe(0);
    const second = await tsop(dir, ["bundle", "validate", "bundle", "-o", "json", "--strict"]);
    expect(JSON.parse(second.stdout).findings).toEqual([]);
    expect(second.exitCode).toBe(0);
  });

  test("reruns are byte-identical and keep createdAt until the CSV content changes", async () => {
    const dir = await copyFixture(MEMCACHED);
    expect((await tsop(dir, ARGS)).exitCode).toBe(0);
    const first = await bundleTree(dir);
    const again = await tsop(dir, ARGS);
    expect(again.stderr).toContain("Bundle in bundle is up to date");
    expect(await bundleTree(dir)).toEqual(first);
    const csvPath = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
    const createdAt = (text: string) =>
      (parse(text) as { metadata: { annotations: { createdAt: string } } }).metadata.annotations.createdAt;
    expect(createdAt(first[csvPath]!)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // A content change gets a new createdAt; SOURCE_DATE_EPOCH pins it.
    const changed = await tsop(dir, [...ARGS.slice(0, 3), "0.0.2", ...ARGS.slice(4)], {
      SOURCE_DATE_EPOCH: EPOCH,
    });
    expect(changed.exitCode).toBe(0);
    const after = await bundleTree(dir);
    expect(createdAt(after[csvPath]!)).toBe("2022-11-08T17:26:37Z");
    expect(after[csvPath]).toContain("name: memcached-operator.v0.0.2");
  });
});
