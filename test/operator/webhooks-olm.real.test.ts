// Webhooks from `tsop create webhook --defaulting --programmatic-validation`, served by the
// operator's own pod with the certificate OLM makes and mounts: the project's image built by
// `tsop image build`, bundled (the CSV's webhookdefinitions) and installed by `tsop run bundle`
// through real OLM; the real kube-apiserver then calls the operator process (through the Service
// OLM creates, over the bed's egress) to default a field and to reject an invalid object.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import {
  buildImage,
  type Env,
  eventually,
  kubectl,
  kubectlJson,
  managerLogs,
  pushBase,
  runningManager,
  tsop,
} from "./support.js";

const NS = "hooks";
let registry: TestRegistry;
let bed: OlmBed;
let work: string;
let project: string;
let env: Env;

/** `tsop init` + `create api` + `create webhook --defaulting --programmatic-validation`, built. */
async function scaffold(): Promise<string> {
  const dir = join(work, "memcached-operator");
  await tsop(work, ["init", dir, "--domain", "example.com"]);
  await tsop(dir, ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
  await tsop(dir, [
    "create",
    "webhook",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
    "--defaulting",
    "--programmatic-validation",
  ]);
  await execa("npm", ["run", "build"], { cwd: dir });
  return dir;
}

beforeAll(async () => {
  registry = await startRegistry();
  work = await mkdtemp(join(tmpdir(), "tsop-operator-webhooks-"));
  const [, scaffolded, started] = await Promise.all([
    pushBase(registry),
    scaffold(),
    startOlmBed({ namespaces: [NS] }),
  ]);
  project = scaffolded;
  bed = started;
  env = { KUBECONFIG: bed.cluster.kubeconfigPath };
}, 900_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

const memcached = (name: string, spec: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: "cache.example.com/v1alpha1",
    kind: "Memcached",
    metadata: { name, namespace: NS },
    spec: { size: 1, ...spec },
  });

it("OLM's certificate, the operator's process: the API server's defaulting and validating calls are served", async () => {
  const plain = `--plain-http=${registry.host}`;
  const image = await buildImage(project, registry, "0.0.1");
  // Without --use-image-digests: the operand image stays docker.io's (kwok simulates its pods).
  await tsop(project, ["bundle", "--image", image, "--version", "0.0.1", "--channels", "alpha", "--yes"]);
  const bundle = `${registry.host}/memcached-operator-bundle:v0.0.1`;
  await tsop(project, ["bundle", "push", bundle, plain]);
  await tsop(project, [
    "run",
    "bundle",
    bundle,
    "-n",
    NS,
    plain,
    "--timeout",
    "5m",
    "--kubeconfig",
    bed.cluster.kubeconfigPath,
  ]);
  const manager = await runningManager(env, bed.olm.runner, NS, image);
  // OLM made the serving certificate and the webhook configurations with its CA.
  const configs = await kubectlJson<{ items: KubeObject[] }>(env, [
    "get",
    "validatingwebhookconfigurations,mutatingwebhookconfigurations",
    "-l",
    `olm.owner.namespace=${NS}`,
  ]);
  expect(configs.items.map((c) => c.kind).sort()).toEqual([
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
  ]);

  const defaulted = await eventually("the defaulting webhook to be served", async () => {
    await kubectl(env, ["delete", "memcached", "defaulted", "-n", NS, "--ignore-not-found"]);
    const created = await kubectl(env, ["create", "-o", "json", "-f", "-"], {
      input: memcached("defaulted", {}),
    });
    if (created.exitCode !== 0) return undefined;
    const object = JSON.parse(created.stdout) as KubeObject;
    return (object.spec as { image?: string }).image ? object : undefined;
  });
  expect((defaulted.spec as { image: string }).image).toBe(
    "docker.io/nginxinc/nginx-unprivileged:1.27-alpine",
  );
  expect(defaulted.metadata.labels?.["app.kubernetes.io/name"]).toBe("memcached");

  const rejected = await kubectl(env, ["create", "-f", "-"], {
    input: memcached("untagged", { image: "docker.io/library/nginx" }),
  });
  expect(rejected.exitCode).not.toBe(0);
  expect(rejected.all).toContain(
    'admission webhook "vmemcached-v1alpha1.kb.io" denied the request: spec.image "docker.io/library/nginx" must name a tag or a digest',
  );
  // Both answers came from the operator's process.
  expect(await managerLogs(env, NS, manager.name)).toMatch(/webhook/i);
}, 600_000);
