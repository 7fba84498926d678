// Control characters (NUL, ESC) and bidirectional overrides (U+202E) in a field a UI shows are
// refused, naming the field and where it came from: tsop.bundle.yaml, a flag, the base CSV, an
// API type's doc comment (via the CRD). Nothing is written.
import { readdir } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { testdir } from "../support/testdir.js";
import { BASE_FLAGS, CRD, DEPLOYMENT, miniProject, tsop } from "./helpers.js";

const FILES = { "crd.yaml": CRD, "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa") };
const WHY = "control and bidirectional-override characters hide or reorder text";

async function run(extra: Record<string, string>, flags: string[] = BASE_FLAGS) {
  const dir = await testdir(miniProject(FILES, extra));
  const result = await tsop(dir, ["bundle", "--skip-generate", "--version", "0.0.1", ...flags]);
  expect(await readdir(dir)).not.toContain("bundle");
  return result;
}

describe("text a UI shows", () => {
  test("displayName with U+202E and NUL in tsop.bundle.yaml", async () => {
    const result = await run({ "tsop.bundle.yaml": 'displayName: "Invoice\\u202Efdp.exe\\u0000"\n' });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `error: tsop.bundle.yaml (displayName): contains U+202E (RIGHT-TO-LEFT OVERRIDE) at character 8; ${WHY}`,
    );
  });

  test("a keyword with NUL in tsop.bundle.yaml", async () => {
    const result = await run({ "tsop.bundle.yaml": 'keywords: [cache, "bad\\u0000"]\n' });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain("tsop.bundle.yaml (keywords): contains U+0000 (NUL)");
  });

  test("--provider-name with an escape sequence", async () => {
    const result = await run({}, [
      "--description",
      "Runs demos",
      "--provider-name",
      "Example \u001b[31mInc",
      "--maintainers",
      "Jane Doe <jane@example.com>",
    ]);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain("error: --provider-name: contains U+001B (ESCAPE) at character 9");
  });

  test("a link name with U+202E in the base CSV", async () => {
    const base = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: demo-operator.v0.0.0
spec:
  displayName: Demo
  description: Runs demos
  provider: {name: Example}
  maintainers: [{name: Jane, email: jane@example.com}]
  links:
  - {name: "Docs\\u202E", url: "https://example.com"}
  install: {strategy: deployment, spec: {deployments: null}}
`;
    const result = await run({ "config/manifests/bases/demo-operator.clusterserviceversion.yaml": base });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      "config/manifests/bases/demo-operator.clusterserviceversion.yaml: the base CSV has invalid fields:",
    );
    expect(result.stderr).toContain("spec.links[0].name contains U+202E (RIGHT-TO-LEFT OVERRIDE)");
  });

  test("a CRD description with U+202E (from an API type's doc comment)", async () => {
    const crd = CRD.replace("description: Demo is a demo.", 'description: "Demo\\u202E is a demo."');
    expect(crd).not.toBe(CRD);
    const dir = await testdir(miniProject({ ...FILES, "crd.yaml": crd }));
    const result = await tsop(dir, ["bundle", "--skip-generate", "--version", "0.0.1", ...BASE_FLAGS]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /spec\.customresourcedefinitions\.owned\[0\]\.description contains U\+202E/,
    );
  });
});
