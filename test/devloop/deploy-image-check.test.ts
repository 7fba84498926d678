// `tsop deploy --image <typo>` on a cluster that never pulls (tsop/testing's workloads mode, like
// kwok) would report the manager ready: deploy asks the image's registry first (a real
// docker-registry on 127.0.0.1). Not there: exit 1, nothing applied. Cannot ask: a warning, and the
// deploy goes on. --skip-image-check skips the question.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeClient } from "../../src/kube/client.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { runTsop } from "../support/cli.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../support/registry.js";
import { scaffoldOperator } from "./project.js";
import { clientFor } from "./support.js";

let cluster: TestCluster;
let client: KubeClient;
let registry: TestRegistry;
let dir: string;
let remove: (() => Promise<void>) | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  [cluster, registry] = await Promise.all([startTestCluster({ workloads: true }), startRegistry()]);
  client = await clientFor(cluster.kubeconfigPath);
  env = { KUBECONFIG: cluster.kubeconfigPath };
  await pushTestImage(registry, "team/memcached-operator", "v1");
  ({ dir, remove } = await scaffoldOperator());
}, 120_000);

afterAll(async () => {
  client?.close();
  await Promise.all([cluster?.stop(), registry?.stop()]);
  await remove?.();
});

const manager = () =>
  client.get({
    apiVersion: "apps/v1",
    kind: "Deployment",
    namespace: "memcached-operator-system",
    name: "memcached-operator-controller-manager",
  });

describe("tsop deploy checks the image first", () => {
  it("an image the registry does not have: exit 1 naming it and the ways out, nothing applied", async () => {
    const typo = `${registry.host}/team/memcached-operatr:v1`;
    const result = await runTsop(["deploy", "--image", typo, `--plain-http=${registry.host}`], {
      cwd: dir,
      env,
    });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      "error: the registry does not have the image(s) to deploy; nothing was applied:",
    );
    expect(result.stderr).toContain(`  - ${typo}: `);
    expect(result.stderr).toContain("pass --skip-image-check if only the cluster can pull it");
    expect(result.stderr).not.toContain("using cluster");
    expect(await manager()).toBeUndefined();
  });

  it("the image is there: deploy says so and deploys", { timeout: 120_000 }, async () => {
    const image = `${registry.host}/team/memcached-operator:v1`;
    const result = await runTsop(
      ["deploy", "--image", image, `--plain-http=${registry.host}`, "--timeout", "60s"],
      { cwd: dir, env, timeoutMs: 110_000 },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("the 1 image(s) to deploy exist in their registries");
    expect((await manager())?.spec.template.spec.containers[0].image).toBe(image);
  });

  it(
    "a registry tsop cannot reach: a warning and the deploy goes on; --skip-image-check asks nothing",
    { timeout: 120_000 },
    async () => {
      const unreachable = "127.0.0.1:9/team/memcached-operator:v1";
      const warned = await runTsop(
        ["deploy", "--image", unreachable, "--plain-http=127.0.0.1:9", "--timeout", "60s"],
        { cwd: dir, env, timeoutMs: 110_000 },
      );
      expect(warned.exitCode, warned.stderr).toBe(0);
      expect(warned.stderr).toContain(`warning: could not check that ${unreachable} exists (`);
      expect(warned.stderr).toContain("deploying anyway");

      const typo = `${registry.host}/team/memcached-operatr:v1`;
      const skipped = await runTsop(["deploy", "--image", typo, "--skip-image-check", "--timeout", "60s"], {
        cwd: dir,
        env,
        timeoutMs: 110_000,
      });
      expect(skipped.exitCode, skipped.stderr).toBe(0);
      expect(skipped.stderr).not.toContain("image(s) to deploy");
      expect((await manager())?.spec.template.spec.containers[0].image).toBe(typo);
      const undeploy = await runTsop(["undeploy"], { cwd: dir, env });
      expect(undeploy.exitCode, undeploy.stderr).toBe(0);
    },
  );
});
