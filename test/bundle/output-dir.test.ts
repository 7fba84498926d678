// `tsop bundle --output-dir` never wrecks the project: a directory that is the project, contains
// it, is a link, or holds files tsop did not write is refused before anything moves (exit 2, the
// reason and "nothing was changed"); the project stays byte for byte as it was, with nothing beside
// it. Files the user keeps in the bundle directory are carried over byte for byte, binary ones too.
import { execFileSync } from "node:child_process";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testdir } from "../support/testdir.js";
import { tsop } from "./helpers.js";
import { ENV, siblings, snapshot, userProject } from "./user-project.js";

const T = { timeout: 180_000 };

async function refused(dir: string, args: string[], reason: RegExp): Promise<void> {
  const before = await snapshot(dir);
  const beside = await siblings(dir);
  const run = await tsop(dir, ["bundle", "--version", "0.0.2", ...args], ENV);
  expect(run.exitCode, run.stderr).toBe(2);
  expect(run.stderr).toMatch(reason);
  expect(run.stderr).toContain("nothing was changed");
  expect(run.stderr).not.toMatch(/unexpected error|\n\s+at /);
  expect(await snapshot(dir)).toEqual(before);
  expect(await siblings(dir)).toEqual(beside);
}

describe("bundle --output-dir that would take the project with it", () => {
  test("--output-dir . (the project itself)", T, async () => {
    const dir = await userProject();
    await refused(dir, ["--output-dir", "."], /--output-dir \.: .* is the project directory itself/);
    // Running again (as an old hint said) changes nothing either.
    await refused(dir, ["--output-dir", "."], /is the project directory itself/);
  });

  test("--output-dir .. and an absolute parent (contain the project)", T, async () => {
    const dir = await userProject();
    await refused(dir, ["--output-dir", ".."], /--output-dir \.\.: .* contains the project/);
    await refused(dir, ["--output-dir", join(dir, "..")], /contains the project/);
  });

  test("--output-dir src and vendor (hold files tsop did not write)", T, async () => {
    const dir = await userProject();
    await refused(
      dir,
      ["--output-dir", "src"],
      /src holds files tsop did not write: api, controllers, main\.ts/,
    );
    await refused(
      dir,
      ["--output-dir", "vendor"],
      /vendor holds files tsop did not write: tsop-0\.1\.0\.tgz/,
    );
  });

  test("outputDir: . in tsop.bundle.yaml is named as such", T, async () => {
    const dir = await userProject();
    const config = join(dir, "tsop.bundle.yaml");
    await writeFile(config, `${await readFile(config, "utf8")}outputDir: .\n`);
    await refused(dir, [], /outputDir in tsop\.bundle\.yaml: .* is the project directory itself/);
  });

  test("a bundle directory that is a link, or holds a link or a FIFO", T, async () => {
    const dir = await userProject();
    const outside = await testdir();
    await symlink(outside, join(dir, "linked"));
    await refused(
      dir,
      ["--output-dir", "linked"],
      /linked is a symbolic link .*does not write through links/,
    );
    await symlink("/etc/hostname", join(dir, "bundle/metadata/host"));
    await refused(dir, [], /bundle holds files tsop did not write: metadata\/host \(a symbolic link\)/);
    await rm(join(dir, "bundle/metadata/host"));
    execFileSync("mkfifo", [join(dir, "bundle/manifests/pipe")]);
    await refused(dir, [], /bundle holds files tsop did not write: manifests\/pipe \(a FIFO\)/);
  });
});

describe("bundle push --oci-layout follows the same rule", () => {
  test("--oci-layout . and --oci-layout src", T, async () => {
    const dir = await userProject();
    for (const [layout, reason] of [
      [".", /--oci-layout .*: .* is the project directory itself/],
      ["src", /src holds files tsop did not write: api, controllers, main\.ts/],
    ] as const) {
      const before = await snapshot(dir);
      const run = await tsop(dir, [
        "bundle",
        "push",
        "localhost:5000/shop-bundle:v1",
        "--oci-layout",
        layout,
      ]);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toMatch(reason);
      expect(await snapshot(dir)).toEqual(before);
    }
  });
});

describe("files the user keeps in the bundle directory", () => {
  test("a binary file in bundle/metadata is carried over byte for byte", T, async () => {
    const dir = await userProject();
    // Not UTF-8: a text round trip would turn these bytes into U+FFFD.
    const icon = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0xc3, 0x28]);
    await mkdir(join(dir, "bundle/metadata/extra"), { recursive: true });
    await writeFile(join(dir, "bundle/metadata/extra/icon.png"), icon);
    const run = await tsop(dir, ["bundle", "--version", "0.0.2"], ENV);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await readFile(join(dir, "bundle/metadata/extra/icon.png"))).toEqual(icon);
    expect(
      await readFile(join(dir, "bundle/manifests/shop-operator.clusterserviceversion.yaml"), "utf8"),
    ).toContain("version: 0.0.2");
  });
});
