// Hostile or malformed YAML a user's project holds ends in a clean error naming the file, never a
// stack trace: an alias bomb ("billion laughs") in PROJECT for `tsop create api`, in the base CSV
// for `tsop bundle`, and in `tsop olm install --manifests <file>`; PROJECT with resources that are
// not a list for `tsop generate`. Nothing is written.
import { readdir } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

/** Nine levels of ten aliases each: 10^9 nodes once expanded. */
const BOMB = [
  "a: &a [x, x, x, x, x, x, x, x, x, x]",
  ..."bcdefghi".split("").map((n, i) => `${n}: &${n} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(", ")}]`),
].join("\n");
const PROJECT = "domain: example.com\nlayout:\n- tsop.dev/v1\nprojectName: bomb\n";
const BOMB_MESSAGE = "the YAML aliases (*name references) expand too much; refusing a possible YAML bomb";

function clean(stderr: string): void {
  expect(stderr).not.toMatch(/unexpected error|\n\s+at .+:\d+:\d+/);
}

describe("hostile YAML in the project", () => {
  test("an alias bomb in PROJECT: create api names PROJECT", async () => {
    const dir = await testdir({ PROJECT: `${PROJECT}${BOMB}\n` });
    const run = await runTsop(["create", "api", "--group", "a", "--version", "v1", "--kind", "Foo"], {
      cwd: dir,
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(`PROJECT: ${BOMB_MESSAGE}`);
    clean(run.stderr);
    expect(await readdir(dir)).toEqual(["PROJECT"]);
  });

  test("an alias bomb in olm install --manifests names the file", async () => {
    const dir = await testdir({ "olm.yaml": `${BOMB}\n` });
    const run = await runTsop(["olm", "install", "--manifests", "olm.yaml"], {
      cwd: dir,
      env: { KUBECONFIG: "/nonexistent" },
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(`olm.yaml (document 1): ${BOMB_MESSAGE}`);
    clean(run.stderr);
  });

  test("an alias bomb in the base CSV names the file", async () => {
    const base = "config/manifests/bases/bomb.clusterserviceversion.yaml";
    const dir = await testdir({
      PROJECT,
      [base]: `apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n${BOMB}\n`,
      "config/manifests/kustomization.yaml": "resources:\n- bases/bomb.clusterserviceversion.yaml\n",
    });
    const run = await runTsop(["bundle", "--skip-generate", "--version", "0.0.1"], {
      cwd: dir,
      env: { CI: "1" },
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(BOMB_MESSAGE);
    expect(run.stderr).toContain("bomb.clusterserviceversion.yaml");
    clean(run.stderr);
    expect(await readdir(dir)).not.toContain("bundle");
  });

  test('PROJECT with resources: "all of them" is refused by generate', async () => {
    const dir = await testdir({ PROJECT: `${PROJECT}resources: "all of them"\n` });
    const run = await runTsop(["generate"], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain('error: PROJECT: resources must be a list, not a string ("all of them")');
    clean(run.stderr);
    expect(await readdir(dir)).toEqual(["PROJECT"]);
  });
});
