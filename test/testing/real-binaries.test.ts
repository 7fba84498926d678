// The real control plane finds its binaries like envtest (explicit path, binaryAssetsDirectory,
// KUBEBUILDER_ASSETS, TSOP_RIG_ASSETS) and names every missing one with how to get it.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBinaries } from "../../src/testing/real/binaries.js";
import { startTestCluster } from "../../src/testing/index.js";

let envtest: string;
let rig: string;

async function fakeBinary(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, "#!/bin/sh\n");
  await chmod(path, 0o755);
  return path;
}

beforeAll(async () => {
  envtest = await mkdtemp(join(tmpdir(), "tsop-envtest-"));
  rig = await mkdtemp(join(tmpdir(), "tsop-rig-"));
  await fakeBinary(envtest, "etcd");
  await fakeBinary(envtest, "kube-apiserver");
  await fakeBinary(rig, "kube-apiserver");
  await fakeBinary(rig, "kwok");
});
afterAll(async () => {
  await rm(envtest, { recursive: true, force: true });
  await rm(rig, { recursive: true, force: true });
});

describe("findBinaries", () => {
  it("prefers KUBEBUILDER_ASSETS over TSOP_RIG_ASSETS and falls through to the rig for the rest", () => {
    const found = findBinaries(
      ["etcd", "kube-apiserver", "kwok"],
      {},
      { KUBEBUILDER_ASSETS: envtest, TSOP_RIG_ASSETS: rig },
    );
    expect(found).toEqual({
      etcd: join(envtest, "etcd"),
      "kube-apiserver": join(envtest, "kube-apiserver"),
      kwok: join(rig, "kwok"),
    });
  });

  it("takes an explicit path, then binaryAssetsDirectory, before the environment", () => {
    const found = findBinaries(
      ["etcd", "kube-apiserver"],
      { binaryAssetsDirectory: rig, binaries: { etcd: join(envtest, "etcd") } },
      { KUBEBUILDER_ASSETS: envtest },
    );
    expect(found).toEqual({ etcd: join(envtest, "etcd"), "kube-apiserver": join(rig, "kube-apiserver") });
  });

  it("names every missing binary, where it looked and how to get them", () => {
    expect(() =>
      findBinaries(
        ["etcd", "kube-controller-manager", "kube-scheduler"],
        {},
        { KUBEBUILDER_ASSETS: envtest },
      ),
    ).toThrow(
      new RegExp(
        `needs kube-controller-manager, kube-scheduler: not found; searched ${envtest} \\(KUBEBUILDER_ASSETS\\)\\. ` +
          "Get them with `npm run rig -- build` in a tsop checkout.*setup-envtest",
      ),
    );
    expect(() => findBinaries(["etcd"], { binaries: { etcd: join(rig, "nope") } }, {})).toThrow(
      `etcd (binaries.etcd = ${join(rig, "nope")} is not an executable file)`,
    );
    expect(() => findBinaries(["etcd"], {}, {})).toThrow(
      "no directory to search (binaryAssetsDirectory, KUBEBUILDER_ASSETS and TSOP_RIG_ASSETS are all unset)",
    );
  });

  it("startTestCluster fails with that message before starting anything", async () => {
    const empty = await mkdtemp(join(tmpdir(), "tsop-empty-"));
    try {
      await expect(
        startTestCluster({
          controlPlane: "real",
          workloads: true,
          binaryAssetsDirectory: empty,
          binaries: {},
        }),
      ).rejects.toThrow(/needs .*kube-controller-manager, kube-scheduler, kwok: not found/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
