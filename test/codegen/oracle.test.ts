// The CRD oracle, fast tier: tsop generate on fixtures/crd-oracle/ts gives the CRDs controller-gen
// gave for the Go types in fixtures/crd-oracle/go (kept in expected/; the real tier re-runs
// controller-gen), including everything inside the built-in Kubernetes types they embed.
import { readFileSync } from "node:fs";
import { cp, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/codegen/index.js";
import { builtinSchemasVersion } from "../../src/codegen/builtin-schemas.js";
import { KUBERNETES_SCHEMAS_VERSION } from "../../src/common/pins.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { crdDifferences, leafCount, ORACLE, readCrds } from "./oracle-support.js";

/** The Kubernetes version the rig builds (scripts/rig/components.mjs pins it). */
const KUBERNETES_VERSION = /export const KUBERNETES_VERSION = "([^"]+)"/.exec(
  readFileSync(join(REPO_ROOT, "scripts/rig/components.mjs"), "utf8"),
)?.[1];

describe("CRD oracle: tsop generate vs controller-gen", () => {
  it("gives controller-gen's CRDs, as data on every schema path", { timeout: 120_000 }, async () => {
    const out = await testdir();
    const cwd = join(out, "ts");
    await cp(join(ORACLE, "ts"), cwd, { recursive: true });
    await symlink(join(REPO_ROOT, "node_modules"), join(cwd, "node_modules"), "dir");
    const tsconfig = join(cwd, "tsconfig.json");
    await writeFile(tsconfig, (await readFile(tsconfig, "utf8")).replace("../../../src", `${REPO_ROOT}/src`));
    await generate({ cwd, what: "crds", crdOut: join(out, "crd") }, new MemoryReporter());
    const expected = readCrds(join(ORACLE, "expected"));
    const actual = readCrds(join(out, "crd"));
    expect([...actual.keys()]).toEqual([...expected.keys()]);
    for (const [file, crd] of expected) {
      expect(leafCount(crd), file).toBeGreaterThan(1000);
      expect(crdDifferences(crd, actual.get(file)), file).toEqual([]);
    }
  });

  it("takes built-in schemas from the pinned Kubernetes version, and tsop version says which", async () => {
    expect(builtinSchemasVersion()).toBe(KUBERNETES_VERSION);
    expect(KUBERNETES_SCHEMAS_VERSION).toBe(KUBERNETES_VERSION);
    const version = await runTsop(["version", "-o", "json"]);
    expect(JSON.parse(version.stdout).kubernetes).toBe(KUBERNETES_VERSION);
    expect((await runTsop(["version"])).stdout).toContain(
      `Kubernetes (built-in type schemas of generate) ${KUBERNETES_VERSION}`,
    );
  });
});
