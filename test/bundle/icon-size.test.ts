// A 30 MB --icon made a 42 MB CSV that `tsop bundle validate` then refused: the icon is refused up
// front (the limit, the file, what to do), nothing written; and a size-limit refusal of
// `bundle validate` says what to do about size, not "Replace links with copies of the files".
import { truncate, writeFile, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testdir } from "../support/testdir.js";
import { BASE_FLAGS, CRD, DEPLOYMENT, miniProject, tsop } from "./helpers.js";

const FILES = { "crd.yaml": CRD, "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa") };

describe("sizes", () => {
  test("a 30 MB --icon is refused before anything is written", async () => {
    const dir = await testdir(miniProject(FILES));
    await writeFile(join(dir, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await truncate(join(dir, "logo.png"), 30 * 1024 * 1024);
    const run = await tsop(dir, [
      "bundle",
      "--skip-generate",
      "--version",
      "0.0.1",
      ...BASE_FLAGS,
      "--icon",
      "logo.png",
    ]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain("error: --icon: icon logo.png is 30.0 MiB; an icon may be at most 512 KiB");
    expect(run.stderr).toContain("hint: use a smaller image");
    expect(await readdir(dir)).not.toContain("bundle");
    expect(await readdir(join(dir, "config/manifests"))).not.toContain("bases");
  });

  test("a small icon is carried", async () => {
    const dir = await testdir(miniProject(FILES));
    await writeFile(join(dir, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const run = await tsop(dir, [
      "bundle",
      "--skip-generate",
      "--version",
      "0.0.1",
      ...BASE_FLAGS,
      "--icon",
      "logo.png",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
  });

  test("bundle validate: an oversized file's hint is about size", async () => {
    const dir = await testdir();
    await mkdir(join(dir, "b/manifests"), { recursive: true });
    await mkdir(join(dir, "b/metadata"), { recursive: true });
    await writeFile(join(dir, "b/manifests/big.yaml"), "");
    await truncate(join(dir, "b/manifests/big.yaml"), 33 * 1024 * 1024);
    const run = await tsop(dir, ["bundle", "validate", "b"]);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/manifests\/big\.yaml is \d+ bytes, more than the limit of \d+/);
    expect(run.stderr).not.toContain("Replace links");
    expect(run.stderr).toContain("make the file smaller");
  });
});
