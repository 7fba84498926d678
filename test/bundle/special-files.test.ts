// A FIFO, socket or device named in the config/ tree is refused with its path (reading a FIFO
// would wait for a writer forever, so `tsop bundle` hung until killed): as a resource, a patch
// file and a configMapGenerator source. Nothing is written.
import { execFileSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { BASE_FLAGS, CRD, DEPLOYMENT, miniProject } from "./helpers.js";

const FILES = { "crd.yaml": CRD, "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa") };

async function bundleWithFifo(kustomizationTail: string, fifo: string) {
  const project = miniProject(FILES);
  project["config/manifests/kustomization.yaml"] += kustomizationTail;
  const dir = await testdir(project);
  execFileSync("mkfifo", [join(dir, "config/manifests", fifo)]);
  // A hang shows as a timeout (exit -1), not as a test that waits forever.
  const run = await runTsop(["bundle", "--skip-generate", "--version", "0.0.1", ...BASE_FLAGS], {
    cwd: dir,
    env: { CI: "1" },
    timeoutMs: 20_000,
  });
  return { dir, run };
}

describe("special files in the config/ tree", () => {
  test("a FIFO listed as a resource", async () => {
    const { dir, run } = await bundleWithFifo("- pipe.yaml\n", "pipe.yaml");
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      "error: config/manifests/kustomization.yaml: resource pipe.yaml is a FIFO (config/manifests/pipe.yaml)",
    );
    expect(await readdir(dir)).not.toContain("bundle");
  });

  test("a FIFO as a patch file", async () => {
    const { run } = await bundleWithFifo("patches:\n- path: patch.yaml\n", "patch.yaml");
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain("patch file patch.yaml is a FIFO (config/manifests/patch.yaml)");
  });

  test("a FIFO as a configMapGenerator source", async () => {
    const { run } = await bundleWithFifo(
      "configMapGenerator:\n- name: settings\n  files:\n  - settings.txt\n",
      "settings.txt",
    );
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/settings\.txt is a FIFO \(config\/manifests\/settings\.txt\)/);
  });
});
