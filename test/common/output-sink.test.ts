// The output sink: the disk as one set (stage, journal, swap; recovery of a killed commit; stale
// temps swept; nothing touched when a target is not writable), stdout for --dry-run, memory.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TsopError } from "../../src/common/errors.js";
import { recoverOutputSets } from "../../src/common/output/commit.js";
import { directorySink, memorySink, type OutputChange, stdoutSink } from "../../src/common/output/sink.js";
import { readTree, testdir } from "../support/testdir.js";

const set = (dir: string, version: string): OutputChange[] => [
  { op: "write", path: join(dir, "config/crd/a.yaml"), content: `a ${version}\n` },
  { op: "write", path: join(dir, "config/rbac/role.yaml"), content: `role ${version}\n` },
  { op: "tree", path: join(dir, "bundle"), files: new Map([["manifests/csv.yaml", `csv ${version}\n`]]) },
];

describe("directorySink", () => {
  it("writes the whole set, replaces a tree and leaves no temp or journal behind", async () => {
    const dir = await testdir({ "bundle/manifests/old.yaml": "old\n", "config/crd/gone.yaml": "x\n" });
    await directorySink(dir).commit([
      ...set(dir, "v2"),
      { op: "remove", path: join(dir, "config/crd/gone.yaml") },
    ]);
    expect(await readTree(dir)).toEqual({
      "bundle/manifests/csv.yaml": "csv v2\n",
      "config/crd/a.yaml": "a v2\n",
      "config/rbac/role.yaml": "role v2\n",
    });
  });

  it("rolls a commit killed mid-swap forward on the next run", async () => {
    const dir = await testdir({ "config/crd/a.yaml": "a v1\n", "bundle/manifests/csv.yaml": "csv v1\n" });
    // The state a kill -9 leaves after the journal was written and the first rename done.
    const tag = "0123456789ab";
    await writeFile(join(dir, "config/crd/a.yaml"), "a v2\n");
    await mkdir(join(dir, "config/rbac"), { recursive: true });
    await writeFile(join(dir, `config/rbac/.role.yaml.${tag}.tmp`), "role v2\n");
    await mkdir(join(dir, `.bundle.tmp-${tag}/manifests`), { recursive: true });
    await writeFile(join(dir, `.bundle.tmp-${tag}/manifests/csv.yaml`), "csv v2\n");
    const steps = [
      { op: "write", path: join(dir, "config/crd/a.yaml"), temp: join(dir, `config/crd/.a.yaml.${tag}.tmp`) },
      {
        op: "write",
        path: join(dir, "config/rbac/role.yaml"),
        temp: join(dir, `config/rbac/.role.yaml.${tag}.tmp`),
      },
      {
        op: "tree",
        path: join(dir, "bundle"),
        temp: join(dir, `.bundle.tmp-${tag}`),
        old: join(dir, `.bundle.old-${tag}`),
      },
    ];
    await writeFile(join(dir, `.tsop-commit-${tag}.json`), JSON.stringify({ tsopCommit: 1, steps }));
    await recoverOutputSets(dir);
    expect(await readTree(dir)).toEqual({
      "bundle/manifests/csv.yaml": "csv v2\n",
      "config/crd/a.yaml": "a v2\n",
      "config/rbac/role.yaml": "role v2\n",
    });
  });

  it("sweeps stale temps of tsop's naming beside its targets, and nothing else", async () => {
    const dir = await testdir({
      "config/crd/.a.yaml.0123456789ab.tmp": "half",
      ".bundle.old-0123456789ab/x": "old",
      "config/crd/.keep.tmp": "user file",
      "config/crd/a.yaml": "a v1\n",
    });
    await directorySink(dir).commit(set(dir, "v2"));
    expect(await readdir(join(dir, "config/crd"))).toEqual([".keep.tmp", "a.yaml"]);
    expect((await readdir(dir)).sort()).toEqual(["bundle", "config"]);
  });

  it("touches nothing when a target's directory is in the way (ENOTDIR), naming the path", async () => {
    const dir = await testdir({
      "config/rbac": "a file where a directory should be",
      "config/crd/a.yaml": "a v1\n",
    });
    const before = await readTree(dir);
    const error = await directorySink(dir)
      .commit(set(dir, "v2"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TsopError);
    expect((error as Error).message).toContain(join(dir, "config/rbac"));
    expect((error as Error).message).toContain("nothing was changed");
    expect(await readTree(dir)).toEqual(before);
  });
});

describe("stdoutSink and memorySink", () => {
  it("--dry-run prints each change as a diff and writes nothing", async () => {
    const dir = await testdir({ "config/crd/a.yaml": "a v1\n", "bundle/manifests/stale.yaml": "s\n" });
    const before = await readTree(dir);
    let printed = "";
    await stdoutSink((t) => (printed += t), dir).commit(set(dir, "v2"));
    expect(printed).toContain("would update config/crd/a.yaml");
    expect(printed).toContain("would create config/rbac/role.yaml");
    expect(printed).toContain("would remove bundle/manifests/stale.yaml");
    expect(printed).toContain("+a v2");
    expect(printed).toContain("-a v1");
    expect(await readTree(dir)).toEqual(before);
  });

  it("memory keeps the files (trees expanded) and touches no disk", async () => {
    const sink = memorySink();
    await sink.commit(set("/nowhere", "v1"));
    expect([...sink.files.keys()].sort()).toEqual([
      "/nowhere/bundle/manifests/csv.yaml",
      "/nowhere/config/crd/a.yaml",
      "/nowhere/config/rbac/role.yaml",
    ]);
  });
});
