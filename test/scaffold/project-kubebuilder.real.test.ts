// PROJECT is the kubebuilder ecosystem's file: operator-sdk loads it before `scorecard` and `bundle
// validate` (the README's next steps after `tsop bundle`) and refuses fields and layouts it does not
// know. The rig's operator-sdk is the oracle: it loads a scaffolded project's PROJECT; it refuses
// one of an earlier tsop (image and layout at the top level), which tsop still reads and whose
// settings its next `create api` moves under plugins.tsop.dev/v1, after which operator-sdk loads it.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTsop } from "../support/cli.js";
import { rigBinary } from "../support/rig.js";
import { scaffoldOperator } from "../devloop/project.js";

let dir: string;
let remove: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ dir, remove } = await scaffoldOperator());
  const bundle = await runTsop(["bundle", "--version", "0.0.1", "-y"], { cwd: dir, env: { CI: "1" } });
  expect(bundle.exitCode, bundle.stderr).toBe(0);
}, 300_000);
afterAll(async () => {
  await remove?.();
});

/** operator-sdk in the project directory, with a HOME of its own. */
async function operatorSdk(args: string[]) {
  const home = await mkdtemp(join(tmpdir(), "tsop-sdk-home-"));
  return execa(rigBinary("operator-sdk"), args, { cwd: dir, env: { HOME: home }, reject: false, all: true });
}

describe("operator-sdk reads a tsop project's PROJECT", () => {
  it("scorecard --list and bundle validate run in a scaffolded project", async () => {
    const scorecard = await operatorSdk(["scorecard", "./bundle", "--list"]);
    expect(scorecard.exitCode, scorecard.all).toBe(0);
    expect(scorecard.all).toContain("basic-check-spec");
    const validate = await operatorSdk(["bundle", "validate", "./bundle"]);
    expect(validate.exitCode, validate.all).toBe(0);
    expect(validate.all).toContain("All validation tests have completed successfully");
  });

  it("an earlier tsop's PROJECT: operator-sdk refuses it, tsop reads it, create api migrates it", async () => {
    const current = await readFile(join(dir, "PROJECT"), "utf8");
    const legacy = current
      .replace(/^plugins:\n {2}tsop\.dev\/v1:\n((?: {4}.*\n)+)/m, (_all, settings: string) =>
        settings.replace(/^ {4}/gm, ""),
      )
      .replace(/^projectName:/m, "layout:\n- tsop.dev/v1\nprojectName:");
    expect(legacy).toMatch(/^image: example\.com\/memcached-operator:0\.0\.1$/m);
    await writeFile(join(dir, "PROJECT"), legacy);

    const refused = await operatorSdk(["scorecard", "./bundle", "--list"]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.all).toMatch(/unknown field "image"|no plugin could be resolved with key "tsop\.dev\/v1"/);
    const bundle = await runTsop(["bundle", "--version", "0.0.1", "-y", "--skip-generate"], {
      cwd: dir,
      env: { CI: "1" },
    });
    expect(bundle.exitCode, bundle.stderr).toBe(0);

    const api = await runTsop(["create", "api", "--group", "infra", "--version", "v1", "--kind", "Cluster"], {
      cwd: dir,
    });
    expect(api.exitCode, api.stderr).toBe(0);
    expect(api.stderr).toContain("PROJECT: moved image, license, owner, layout under plugins.tsop.dev/v1");
    const loaded = await operatorSdk(["scorecard", "./bundle", "--list"]);
    expect(loaded.exitCode, loaded.all).toBe(0);
    expect(loaded.all).toContain("basic-check-spec");
  });
});
