// `runBundleV1` end to end without a cluster or registry (--dry-run, the bundle pulled through the
// test seam from fixtures/run): the refusal comes before anything else, and the plan is what a real
// run creates, with the catalog image still a tag (nothing pushed).
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { PullBundle } from "../../src/bundle/load/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { runBundleV1 } from "../../src/olm/run/v1/run-bundle.js";
import { fixtureDir } from "../run/fixtures.js";

const CSV = "manifests/memcached-operator.clusterserviceversion.yaml";

/** A pull that copies fixtures/run/memcached-0.0.1, optionally without its required API. */
function pullFixture(withoutRequired: boolean): PullBundle {
  return async (_image, destDir) => {
    await cp(fixtureDir("0.0.1"), destDir, { recursive: true });
    if (withoutRequired) {
      const csv = parse(await readFile(join(destDir, CSV), "utf8"));
      delete csv.spec.customresourcedefinitions.required;
      await writeFile(join(destDir, CSV), stringify(csv));
    }
    return { digest: `sha256:${"0".repeat(64)}`, dir: destDir };
  };
}

const options = (withoutRequired: boolean) => ({
  image: "registry.test/memcached-bundle:v0.0.1",
  namespace: "demo",
  dryRun: true,
  timeoutMs: 60_000,
  reporter: new MemoryReporter(),
  pull: pullFixture(withoutRequired),
  env: {},
});

describe("runBundleV1 --dry-run", () => {
  it("prints the plan; the catalog image is named beside the bundle, not pushed", async () => {
    const result = await runBundleV1(options(true));
    expect(result).toMatchObject({
      olm: "v1",
      dryRun: true,
      namespace: "demo",
      packageName: "memcached-operator",
      csv: "memcached-operator.v0.0.1",
      version: "0.0.1",
      catalogImage: "registry.test/memcached-bundle-catalog:v0.0.1",
      created: [],
    });
    expect(result.objects.map((o) => o.kind)).toEqual([
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "ClusterCatalog",
      "ClusterExtension",
    ]);
  });

  it("refuses the fixture's dependency (V1-03) with the finding and what to do", async () => {
    const run = runBundleV1(options(false));
    await expect(run).rejects.toThrow(
      /OLM v1 cannot install bundle registry\.test\/memcached-bundle:v0\.0\.1 \(nothing was created\):\n.*V1-03/,
    );
    await expect(run).rejects.toMatchObject({
      hint: expect.stringMatching(/resolves no dependencies.*--olm v0/),
    });
  });
});
