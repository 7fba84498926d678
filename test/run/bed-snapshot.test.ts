// The real tier's "every object in the cluster" snapshot (test/run/bed.ts) when a kind vanishes
// between kubectl's discovery and its get, as OLM's CRDs do during `tsop olm uninstall`. A kubectl
// wrapper deletes the CRD right after `api-resources` answered, which makes the race certain.
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { memcachedCrd } from "../testing/helpers.js";
import { testdir } from "../support/testdir.js";
import { snapshot } from "./bed.js";

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ tls: true });
});
afterAll(async () => {
  await cluster?.stop();
});

/** A kubectl that, once, deletes the memcached CRD after answering `api-resources`. */
async function kubectlThatDeletesTheCrd(dir: string): Promise<string> {
  const real = (await execa("sh", ["-c", "command -v kubectl"])).stdout;
  const wrapper = join(dir, "kubectl");
  await writeFile(join(dir, "armed"), "");
  await writeFile(
    wrapper,
    `#!/bin/sh
"${real}" "$@"; rc=$?
if [ "$1" = api-resources ] && [ -f "${dir}/armed" ]; then
  rm "${dir}/armed"
  "${real}" delete crd ${memcachedCrd.metadata.name} >/dev/null || exit 99
fi
exit $rc
`,
  );
  await chmod(wrapper, 0o755);
  return wrapper;
}

describe("snapshot", () => {
  it("a kind deleted between discovery and the get counts as empty; the other kinds are still listed", async () => {
    const dir = await testdir();
    process.env.HOME = dir; // kubectl's discovery cache
    const kubectl = (...args: string[]) =>
      execa("kubectl", args, { env: { KUBECONFIG: cluster.kubeconfigPath } });
    await writeFile(join(dir, "crd.json"), JSON.stringify(memcachedCrd));
    await kubectl("apply", "-f", join(dir, "crd.json"));
    await kubectl("create", "configmap", "kept", "-n", "default");
    process.env.KUBECTL = await kubectlThatDeletesTheCrd(dir);
    try {
      const objects = await snapshot(cluster.kubeconfigPath);
      expect(objects).toContain("ConfigMap default/kept");
      expect(objects).not.toContain(`CustomResourceDefinition ${memcachedCrd.metadata.name}`);
    } finally {
      delete process.env.KUBECTL;
    }
  });
});
