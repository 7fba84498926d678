// The docker-free loop on the real test bed: a scaffolded operator's own image built by `tsop image
// build` (no container engine) and pushed to a docker-registry on 127.0.0.1, bundled with `--image
// <the printed reference> --use-image-digests`, pushed as a bundle image and installed by `tsop run
// bundle` through real OLM. The Deployment that OLM creates runs the image by the digest skopeo
// reports for the pushed tag.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { KubeClient } from "../../src/kube/client.js";
import { runTsop } from "../support/cli.js";
import { pushTestImage, skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { DEFAULT_WORKLOAD_IMAGE } from "../../src/scaffold/api.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { pushNodeBase } from "./node-base.js";

const NAMESPACE = "loop";
let registry: TestRegistry;
let bed: OlmBed;
let client: KubeClient;
let work: string;
let project: string;
let operandDigest: string;

async function tsop(args: string[], cwd = project): Promise<string> {
  const result = await runTsop(args, { cwd, timeoutMs: 330_000 });
  expect(result.exitCode, `tsop ${args.join(" ")}\n${result.stderr}`).toBe(0);
  return result.stdout.trim();
}

beforeAll(async () => {
  registry = await startRegistry();
  await pushNodeBase(registry, "base/node", "20");
  work = await mkdtemp(join(tmpdir(), "tsop-image-loop-"));
  project = join(work, "memcached-operator");
  await tsop(["init", project, "--domain", "example.com"], work);
  await tsop(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
  await execa("npm", ["run", "build"], { cwd: project });
  // The operand image (RELATED_IMAGE_MEMCACHED) from the local registry, as a disconnected user
  // mirrors it: docker.io is not reachable here, and --use-image-digests pins it too.
  operandDigest = await pushTestImage(registry, "mirror/memcached", "1.27");
  const manager = join(project, "config/manager/manager.yaml");
  await writeFile(
    manager,
    (await readFile(manager, "utf8")).replaceAll(
      DEFAULT_WORKLOAD_IMAGE,
      `${registry.host}/mirror/memcached:1.27`,
    ),
  );
  bed = await startOlmBed({ namespaces: [NAMESPACE] });
  client = await KubeClient.connect({ kubeconfig: bed.cluster.kubeconfigPath, env: {} });
}, 900_000);

afterAll(async () => {
  client?.close();
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

it("image build → bundle --use-image-digests → bundle push → run bundle: OLM runs the operator by that digest", async () => {
  const plain = `--plain-http=${registry.host}`;
  const pinned = await tsop([
    "image",
    "build",
    "--base",
    `${registry.host}/base/node:20`,
    "--push",
    `${registry.host}/memcached-operator:0.0.1`,
    plain,
    "-q",
  ]);
  const pushed = await skopeoInspect(registry, "memcached-operator:0.0.1");
  expect(pinned).toBe(`${registry.host}/memcached-operator@${pushed.Digest}`);

  await tsop([
    "bundle",
    "--image",
    pinned,
    "--use-image-digests",
    "--version",
    "0.0.1",
    "--channels",
    "alpha",
    "--yes",
    plain,
  ]);
  const bundleImage = `${registry.host}/memcached-operator-bundle:v0.0.1`;
  await tsop(["bundle", "push", bundleImage, plain]);
  await tsop([
    "run",
    "bundle",
    bundleImage,
    "-n",
    NAMESPACE,
    plain,
    "--timeout",
    "5m",
    "--kubeconfig",
    bed.cluster.kubeconfigPath,
  ]);

  const csv = await client.get({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    namespace: NAMESPACE,
    name: "memcached-operator.v0.0.1",
  });
  expect(csv?.status?.phase).toBe("Succeeded");
  const deployments = (await client.list("apps/v1", "Deployment", { namespace: NAMESPACE })).items;
  const images = deployments.flatMap((d) =>
    (
      (d.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers ??
      []
    ).map((c) => c.image),
  );
  expect(images).toContain(pinned);
  const env = deployments.flatMap((d) =>
    (
      d.spec as {
        template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } };
      }
    ).template.spec.containers.flatMap((c) => c.env ?? []),
  );
  expect(env).toContainEqual({
    name: "RELATED_IMAGE_MEMCACHED",
    value: `${registry.host}/mirror/memcached@${operandDigest}`,
  });
}, 900_000);
