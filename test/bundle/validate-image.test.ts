// `tsop bundle validate <image>`: an argument that is not a directory but names an image is
// pulled from the registry (a real one here) and validated like a directory.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";
import { MEMCACHED_EXPECTED, tsop } from "./helpers.js";

describe("bundle validate <image>", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
  });
  afterAll(() => registry?.stop());

  test("pulls the bundle image and validates its content", async () => {
    const dir = await testdir();
    const ref = `${registry.host}/memcached-operator-bundle:v0.0.1`;
    const push = await tsop(dir, [
      "bundle",
      "push",
      ref,
      "--dir",
      join(MEMCACHED_EXPECTED, "bundle"),
      "--plain-http",
    ]);
    expect(push.exitCode, push.stderr).toBe(0);
    const run = await tsop(dir, ["bundle", "validate", ref, "--plain-http", "-o", "json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.bundle).toBe(ref);
    expect(report.findings.map((f: { id: string }) => f.id)).toEqual(["CSV-10"]);

    const missing = await tsop(dir, [
      "bundle",
      "validate",
      `${registry.host}/nothing-here:v1`,
      "--plain-http",
    ]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/nothing-here/);
  });
});
