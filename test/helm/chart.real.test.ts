// The chart `tsop helm` writes for the scaffolded memcached operator, judged by Helm itself (the
// rig's helm): `helm lint --strict` and `helm template` accept it, --set image.tag and replicas
// change what it renders as values.yaml documents, and `helm install` on the test bed runs the
// operator (its image built by `tsop image build` into a registry on 127.0.0.1, so the pod runner
// runs its pod as a process) in a namespace enforcing Pod Security "restricted"; the operator
// reconciles the sample, and `helm uninstall` removes the manager and its RBAC, keeping the CRD.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../src/kube/objects.js";
import { rigBinary } from "../support/rig.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import {
  buildImage,
  conditionOf,
  type Env,
  eventually,
  kubectl,
  kubectlJson,
  pushBase,
  runningManager,
  scaffoldMemcached,
  tsop,
} from "../operator/support.js";

const RELEASE_NAMESPACE = "operators";
const DEPLOYMENT = "memcached-operator-controller-manager";
let registry: TestRegistry;
let bed: OlmBed;
let work: string;
let project: string;
let image: string;
let env: Env;

beforeAll(async () => {
  registry = await startRegistry();
  work = await mkdtemp(join(tmpdir(), "tsop-helm-real-"));
  const [, scaffolded, started] = await Promise.all([
    pushBase(registry),
    scaffoldMemcached(work),
    startOlmBed({ olm: false, namespaces: ["tenant"] }),
  ]);
  project = scaffolded;
  bed = started;
  image = await buildImage(project, registry, "0.0.1");
  // Helm keeps its caches and repository config under these; a temp dir keeps the run's own.
  env = {
    KUBECONFIG: bed.cluster.kubeconfigPath,
    HELM_CACHE_HOME: join(work, "helm/cache"),
    HELM_CONFIG_HOME: join(work, "helm/config"),
    HELM_DATA_HOME: join(work, "helm/data"),
  };
  await tsop(project, ["helm"]);
}, 900_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

async function helm(args: string[]) {
  return execa(rigBinary("helm"), args, { cwd: project, env, reject: false, all: true });
}

/** `helm template` of chart/ with `args`; the documents it renders. */
async function rendered(args: string[]): Promise<KubeObject[]> {
  const result = await helm(["template", "memcached", "chart", "-n", RELEASE_NAMESPACE, ...args]);
  expect(result.exitCode, result.all).toBe(0);
  return parseAllDocuments(result.stdout).map((d) => d.toJS() as KubeObject);
}

function manager(objects: KubeObject[]): { replicas: unknown; image: unknown; args: unknown } {
  const deployment = objects.find((o) => o.kind === "Deployment" && o.metadata.name === DEPLOYMENT);
  expect(deployment, "the manager Deployment").toBeDefined();
  const container = deployment!.spec.template.spec.containers[0];
  return { replicas: deployment!.spec.replicas, image: container.image, args: container.args };
}

it("helm lint --strict and helm template accept the chart; --set changes the image and replicas", async () => {
  const lint = await helm(["lint", "chart", "--strict"]);
  expect(lint.exitCode, lint.all).toBe(0);
  expect(lint.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");

  const defaults = await rendered([]);
  expect(manager(defaults)).toEqual({
    replicas: 1,
    image: "example.com/memcached-operator:0.0.1",
    args: ["--leader-elect", "--metrics-bind-address=:8443", "--health-probe-bind-address=:8081"],
  });
  expect(
    defaults.every(
      (o) =>
        o.kind === "CustomResourceDefinition" ||
        o.kind.startsWith("Cluster") ||
        o.metadata.namespace === RELEASE_NAMESPACE,
    ),
  ).toBe(true);
  expect(defaults.some((o) => o.kind === "ServiceMonitor")).toBe(false);

  const set = await rendered(["--set", "image.tag=9.9.9", "--set", "replicas=3"]);
  expect(manager(set)).toMatchObject({ replicas: 3, image: "example.com/memcached-operator:9.9.9" });
  const digest = `sha256:${"b".repeat(64)}`;
  const pinned = await rendered([
    "--set",
    `image.digest=${digest}`,
    "--set",
    "leaderElection.enabled=false",
    "--set",
    "metrics.enabled=false",
  ]);
  expect(manager(pinned)).toMatchObject({
    image: `example.com/memcached-operator@${digest}`,
    args: ["--metrics-bind-address=0", "--health-probe-bind-address=:8081"],
  });
  expect(pinned.some((o) => o.kind === "Service" && /metrics/.test(o.metadata.name ?? ""))).toBe(false);
  const watching = await rendered([
    "--set",
    "watchNamespaces={tenant,other}",
    "--set",
    "metrics.serviceMonitor.enabled=true",
  ]);
  const env = watching.find((o) => o.kind === "Deployment")!.spec.template.spec.containers[0].env;
  expect(env).toContainEqual({ name: "WATCH_NAMESPACE", value: "tenant,other" });
  expect(watching.find((o) => o.kind === "ServiceMonitor")?.spec.endpoints[0]).toMatchObject({
    port: "https",
    scheme: "https",
  });

  // values.schema.json: Helm refuses what it does not allow, naming the value.
  const refused = await helm([
    "template",
    "memcached",
    "chart",
    "--set",
    "replicas=-1",
    "--set",
    "imag.tag=x",
  ]);
  expect(refused.exitCode).not.toBe(0);
  expect(refused.all).toContain("/replicas");
  expect(refused.all).toContain("additional properties 'imag' not allowed");
});

it("helm install runs the operator in a restricted namespace, it reconciles the sample, and helm uninstall cleans up", async () => {
  const created = await kubectl(env, ["create", "namespace", RELEASE_NAMESPACE]);
  expect(created.exitCode, created.all).toBe(0);
  const labelled = await kubectl(env, [
    "label",
    "namespace",
    RELEASE_NAMESPACE,
    "pod-security.kubernetes.io/enforce=restricted",
  ]);
  expect(labelled.exitCode, labelled.all).toBe(0);
  const at = image.indexOf("@");
  const repository = image.slice(0, at).replace(/:[^:/]*$/, "");
  const digest = image.slice(at + 1);
  const install = await helm([
    "install",
    "memcached",
    "chart",
    "-n",
    RELEASE_NAMESPACE,
    "--set",
    `image.repository=${repository}`,
    "--set",
    `image.digest=${digest}`,
    "--wait",
    "--timeout",
    "4m",
  ]);
  expect(install.exitCode, install.all).toBe(0);
  const running = await runningManager(env, bed.olm.runner, RELEASE_NAMESPACE, `${repository}@${digest}`);

  const applied = await kubectl(env, ["apply", "-k", "config/samples", "-n", "tenant"], { cwd: project });
  expect(applied.exitCode, applied.all).toBe(0);
  const cr = await eventually(
    "the sample reconciled by the operator the chart installed",
    async () => {
      const cr = await kubectlJson(env, ["get", "memcached", "memcached-sample", "-n", "tenant"]);
      return conditionOf(cr, "Available")?.status === "True" ? cr : undefined;
    },
    180_000,
  );
  expect(cr.metadata.finalizers).toEqual(["cache.example.com/finalizer"]);
  const owned = await kubectlJson(env, ["get", "deployment", "memcached-sample", "-n", "tenant"]);
  expect(owned.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Memcached", uid: cr.metadata.uid });

  // The sample goes while the operator still runs its finalizer; then the release.
  const deleted = await kubectl(env, [
    "delete",
    "memcached",
    "memcached-sample",
    "-n",
    "tenant",
    "--wait",
    "--timeout=120s",
  ]);
  expect(deleted.exitCode, deleted.all).toBe(0);
  const uninstall = await helm([
    "uninstall",
    "memcached",
    "-n",
    RELEASE_NAMESPACE,
    "--wait",
    "--timeout",
    "2m",
  ]);
  expect(uninstall.exitCode, uninstall.all).toBe(0);
  await eventually(
    "the manager's process to stop",
    async () =>
      bed.olm.runner.podPids(RELEASE_NAMESPACE, running.name).length === 0 &&
      !bed.olm.runner.podNames().some((n) => n.startsWith(`${RELEASE_NAMESPACE}/`)),
  );
  const left = await kubectl(env, [
    "get",
    "deployments,serviceaccounts,services,roles,rolebindings",
    "-n",
    RELEASE_NAMESPACE,
    "-l",
    "app.kubernetes.io/instance=memcached",
    "-o",
    "name",
  ]);
  expect(left.exitCode, left.all).toBe(0);
  expect(left.stdout.trim()).toBe("");
  const clusterRbac = await kubectl(env, [
    "get",
    "clusterroles,clusterrolebindings",
    "-l",
    "app.kubernetes.io/instance=memcached",
    "-o",
    "name",
  ]);
  expect(clusterRbac.stdout.trim()).toBe("");
  // crds.keep (the default): the CRD stays, so no custom resource goes with a release.
  const crd = await kubectl(env, ["get", "crd", "memcacheds.cache.example.com", "-o", "name"]);
  expect(crd.exitCode, crd.all).toBe(0);
  const releases = await helm(["list", "-n", RELEASE_NAMESPACE, "-q"]);
  expect(releases.stdout.trim()).toBe("");
}, 600_000);

it("with webhooks the chart holds cert-manager's Certificate and the webhook configurations in the release namespace", async () => {
  await tsop(project, [
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
  const chartDir = join(work, "webhook-chart");
  await tsop(project, ["helm", "--output-dir", chartDir]);
  const lint = await helm(["lint", chartDir, "--strict"]);
  expect(lint.exitCode, lint.all).toBe(0);
  const result = await helm(["template", "memcached", chartDir, "-n", RELEASE_NAMESPACE]);
  expect(result.exitCode, result.all).toBe(0);
  const objects = parseAllDocuments(result.stdout).map((d) => d.toJS() as KubeObject);
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  for (const config of [
    ...byKind("MutatingWebhookConfiguration"),
    ...byKind("ValidatingWebhookConfiguration"),
  ]) {
    expect(config.metadata.annotations?.["cert-manager.io/inject-ca-from"]).toBe(
      `${RELEASE_NAMESPACE}/memcached-operator-serving-cert`,
    );
    const [webhook] = config.webhooks as Array<{ clientConfig: { service: unknown } }>;
    expect(webhook?.clientConfig.service).toMatchObject({
      name: "memcached-operator-webhook-service",
      namespace: RELEASE_NAMESPACE,
    });
  }
  expect(byKind("MutatingWebhookConfiguration")).toHaveLength(1);
  expect(byKind("ValidatingWebhookConfiguration")).toHaveLength(1);
  const [certificate] = byKind("Certificate");
  expect(certificate?.metadata.namespace).toBe(RELEASE_NAMESPACE);
  expect(certificate?.spec.dnsNames).toEqual([
    `memcached-operator-webhook-service.${RELEASE_NAMESPACE}.svc`,
    `memcached-operator-webhook-service.${RELEASE_NAMESPACE}.svc.cluster.local`,
  ]);
  expect(byKind("Issuer")[0]?.metadata.namespace).toBe(RELEASE_NAMESPACE);
  const pod = byKind("Deployment")[0]!.spec.template.spec;
  expect(pod.containers[0].args).toContain("--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs");
  expect(pod.volumes).toContainEqual({
    name: "webhook-certs",
    secret: { secretName: certificate?.spec.secretName },
  });
}, 300_000);
