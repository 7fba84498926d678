// PROJECT written by an earlier tsop (image, license, owner, bundle and `layout: [tsop.dev/v1]` at
// the top level, which kubebuilder and operator-sdk refuse): tsop still reads it, and its next write
// (create api, create webhook) moves those settings under plugins.tsop.dev/v1, says so, and keeps
// the user's comments and extra keys. The real tier checks the result with operator-sdk itself.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createApi, scaffoldProject } from "./helpers.js";

const LEGACY_PROJECT = `# my team's notes stay
domain: example.com
image: quay.io/team/memcached-operator:0.0.7
layout:
- tsop.dev/v1
license: none
owner: Team Storage
projectName: memcached-operator
bundle:
  channels: [stable]
repo: github.com/team/memcached-operator
resources: []
version: "3"
`;

describe("PROJECT of an earlier tsop", () => {
  it("is read as it is, and create api moves tsop's settings under plugins.tsop.dev/v1", async () => {
    const dir = await scaffoldProject();
    await writeFile(join(dir, "PROJECT"), LEGACY_PROJECT);
    const created = await createApi(dir, [
      "--group",
      "cache",
      "--version",
      "v1alpha1",
      "--kind",
      "Memcached",
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stderr).toContain(
      "PROJECT: moved image, license, owner, bundle, layout under plugins.tsop.dev/v1 (kubebuilder and operator-sdk",
    );
    // Read as it was: license none means no header, the legacy image and owner are the project's.
    expect(await readFile(join(dir, "src/api/v1alpha1/memcached.ts"), "utf8")).not.toContain("Copyright");
    const text = await readFile(join(dir, "PROJECT"), "utf8");
    expect(text).toContain("# my team's notes stay");
    const project = parse(text) as Record<string, unknown>;
    for (const key of ["image", "license", "owner", "bundle", "layout"])
      expect(project).not.toHaveProperty(key);
    expect(project.plugins).toEqual({
      "tsop.dev/v1": {
        image: "quay.io/team/memcached-operator:0.0.7",
        license: "none",
        owner: "Team Storage",
        bundle: { channels: ["stable"] },
      },
    });
    expect(project.repo).toBe("github.com/team/memcached-operator");
    expect((project.resources as unknown[]).length).toBe(1);

    // The next write has nothing to move and says nothing about it.
    const again = await createApi(dir, [
      "--group",
      "infra",
      "--version",
      "v1",
      "--kind",
      "Cluster",
      "--namespaced=false",
    ]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("PROJECT: moved");
    expect((parse(await readFile(join(dir, "PROJECT"), "utf8")) as Record<string, unknown>).plugins).toEqual(
      project.plugins,
    );
  });
});
