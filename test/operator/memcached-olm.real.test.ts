// The README's memcached operator end to end through real OLM, with the operator really running:
// `tsop init` + `create api` → `tsop image build --push` to a registry on 127.0.0.1 → `bundle
// --use-image-digests` → `bundle push` → `run bundle`; OLM's Deployment runs the pinned image as a
// process of the pod runner (in-cluster config from the projected token, the CSV's RBAC as its
// only permissions, leader election through its Role). The sample CR is reconciled by that process
// (finalizer, status, Deployment), a spec.size change is followed, `run bundle-upgrade` to a
// v0.0.2 whose controller labels its Deployments hands over to the new process, which reconciles
// the existing CR; deleting the CR runs the finalizer; `tsop cleanup` leaves nothing and no process.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { DEFAULT_WORKLOAD_IMAGE } from "../../src/scaffold/api.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, snapshot } from "../run/bed.js";
import {
  alive,
  buildImage,
  CONTROLLER,
  conditionOf,
  edit,
  type Env,
  eventually,
  kubectl,
  kubectlJson,
  managerLogs,
  pushBase,
  runningManager,
  scaffoldMemcached,
  tsop,
} from "./support.js";

const NS = "memcached";
const CRD = "memcacheds.cache.example.com";
let registry: TestRegistry;
let bed: OlmBed;
let work: string;
let project: string;
let env: Env;
let operandDigest: string;

beforeAll(async () => {
  registry = await startRegistry();
  work = await mkdtemp(join(tmpdir(), "tsop-operator-olm-"));
  const [, scaffolded, started] = await Promise.all([
    pushBase(registry),
    scaffoldMemcached(work),
    startOlmBed({ namespaces: [NS] }),
  ]);
  project = scaffolded;
  bed = started;
  env = { KUBECONFIG: bed.cluster.kubeconfigPath };
  // The operand, mirrored to the local registry as a disconnected user does (docker.io is not
  // reachable): a Node.js server on the port its last argument names (the runner rewrites it).
  await pushNodeBase(registry, "mirror/memcached", "1.27", {
    cmd: ["-e", OPERAND, "8080"],
  });
  operandDigest = (await skopeoInspect(registry, "mirror/memcached:1.27")).Digest;
  await edit(
    project,
    "config/manager/manager.yaml",
    DEFAULT_WORKLOAD_IMAGE,
    `${registry.host}/mirror/memcached:1.27`,
  );
}, 900_000);

const OPERAND = `require("http").createServer((q, s) => s.end("memcached stand-in")).listen(Number(process.argv[1]), () => console.log("serving"))`;

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

const plain = () => `--plain-http=${registry.host}`;
const kubeconfig = () => ["--kubeconfig", bed.cluster.kubeconfigPath];

/** image build → bundle --use-image-digests → bundle push, at `version`; returns [pinned image, bundle image]. */
async function release(version: string): Promise<[string, string]> {
  const pinned = await buildImage(project, registry, version);
  await tsop(project, [
    "bundle",
    "--image",
    pinned,
    "--use-image-digests",
    "--version",
    version,
    "--channels",
    "alpha",
    "--yes",
    plain(),
  ]);
  const bundle = `${registry.host}/memcached-operator-bundle:v${version}`;
  await tsop(project, ["bundle", "push", bundle, plain()]);
  return [pinned, bundle];
}

async function sample(): Promise<KubeObject> {
  return kubectlJson(env, ["get", "memcached", "memcached-sample", "-n", NS]);
}

async function deployment(): Promise<KubeObject> {
  return kubectlJson(env, ["get", "deployment", "memcached-sample", "-n", NS]);
}

const describe = async () =>
  (await kubectl(env, ["get", "memcached,deployments,pods,csv", "-n", NS, "-o", "yaml"])).all?.slice(-8000) ??
  "";

it("run bundle → the operator's process reconciles; bundle-upgrade hands over to v0.0.2; delete runs the finalizer; cleanup leaves nothing", async () => {
  const before = await snapshot(bed.cluster.kubeconfigPath);
  const [v1, bundle1] = await release("0.0.1");
  await tsop(project, ["run", "bundle", bundle1, "-n", NS, plain(), "--timeout", "5m", ...kubeconfig()]);
  const first = await runningManager(env, bed.olm.runner, NS, v1);
  const lease = await kubectlJson(env, ["get", "lease", "memcached-operator.example.com", "-n", NS]);
  expect((lease.spec as { holderIdentity: string }).holderIdentity).toMatch(new RegExp(`^${first.name}_`));

  const applied = await kubectl(env, ["apply", "-k", "config/samples", "-n", NS], { cwd: project });
  expect(applied.exitCode, applied.all).toBe(0);
  const cr = await eventually(
    "the sample reconciled (Available)",
    async () => {
      const cr = await sample();
      return conditionOf(cr, "Available")?.status === "True" ? cr : undefined;
    },
    180_000,
    describe,
  );
  expect(cr.metadata.finalizers).toEqual(["cache.example.com/finalizer"]);
  expect((await deployment()).metadata.ownerReferences?.[0]).toMatchObject({
    kind: "Memcached",
    uid: cr.metadata.uid,
  });
  expect(await managerLogs(env, NS, first.name)).toMatch(/starting workers/);

  // Disconnected: the operand runs from the digest the CSV pins (RELATED_IMAGE_MEMCACHED), and its
  // pod is a process of the runner pulled by that digest.
  const pinnedOperand = `${registry.host}/mirror/memcached@${operandDigest}`;
  const csv = await kubectlJson(env, ["get", "csv", "memcached-operator.v0.0.1", "-n", NS]);
  expect(
    (csv.spec as { relatedImages: Array<{ image: string }> }).relatedImages.map((r) => r.image),
  ).toContain(pinnedOperand);
  const podSpec = (await deployment()).spec?.template as { spec: { containers: Array<{ image: string }> } };
  expect(podSpec.spec.containers[0]!.image).toBe(pinnedOperand);
  const operandPods = await kubectlJson<{ items: KubeObject[] }>(env, [
    "get",
    "pods",
    "-n",
    NS,
    "-l",
    "app.kubernetes.io/instance=memcached-sample",
  ]);
  expect(operandPods.items).toHaveLength(1);
  const operandPod = operandPods.items[0]!;
  expect(
    (operandPod.status as { containerStatuses: Array<{ imageID: string }> }).containerStatuses[0]!.imageID,
  ).toBe(pinnedOperand);
  expect(bed.olm.runner.podPids(NS, operandPod.metadata.name ?? "")).toHaveLength(1);

  const patched = await kubectl(env, [
    "patch",
    "memcached",
    "memcached-sample",
    "-n",
    NS,
    "--type=merge",
    "-p",
    '{"spec":{"size":3}}',
  ]);
  expect(patched.exitCode, patched.all).toBe(0);
  await eventually(
    "the Deployment and the status to follow spec.size=3",
    async () => (await deployment()).spec?.replicas === 3 && (await sample()).status?.availableReplicas === 3,
    180_000,
    describe,
  );

  // v0.0.2: the controller also labels the Deployments it manages with its version.
  await edit(
    project,
    CONTROLLER,
    "metadata: { name, namespace, labels },",
    'metadata: { name, namespace, labels: { ...labels, "example.com/operator-version": "0.0.2" } },',
  );
  await execa("npm", ["run", "build"], { cwd: project });
  const [v2, bundle2] = await release("0.0.2");
  expect(v2).not.toBe(v1);
  await tsop(project, [
    "run",
    "bundle-upgrade",
    bundle2,
    "-n",
    NS,
    plain(),
    "--timeout",
    "5m",
    ...kubeconfig(),
  ]);
  const second = await runningManager(env, bed.olm.runner, NS, v2);
  await eventually(
    "the v0.0.2 operator to label the existing CR's Deployment",
    async () => (await deployment()).metadata.labels?.["example.com/operator-version"] === "0.0.2",
    180_000,
    describe,
  );
  await eventually("the v0.0.1 process to be gone", async () => first.pids.every((pid) => !alive(pid)));
  expect(await managerLogs(env, NS, second.name)).toMatch(/starting workers/);

  const deleted = await kubectl(env, [
    "delete",
    "memcached",
    "memcached-sample",
    "-n",
    NS,
    "--wait",
    "--timeout=90s",
  ]);
  expect(deleted.exitCode, deleted.all).toBe(0);
  expect(await managerLogs(env, NS, second.name)).toMatch(/Memcached is being deleted/);

  await tsop(project, ["cleanup", "memcached-operator", "-n", NS, "--timeout", "3m", ...kubeconfig()]);
  await eventually("no pod of the namespace left on the runner", async () =>
    bed.olm.runner.podNames().every((p) => !p.startsWith(`${NS}/`)) ? true : undefined,
  );
  expect([...first.pids, ...second.pids].filter(alive)).toEqual([]);
  // tsop cleanup keeps the CRD (and what hangs off it) unless --delete-crds; nothing else is left.
  const kept = [
    "APIService v1alpha1.cache.example.com",
    ...["admin", "crdview", "edit", "view"].map((s) => `ClusterRole ${CRD}-v1alpha1-${s}`),
    `CustomResourceDefinition ${CRD}`,
  ];
  const left = await eventually(
    "cleanup to finish",
    async () => {
      const left = added(before, await snapshot(bed.cluster.kubeconfigPath));
      return left.join() === kept.join() ? left : undefined;
    },
    120_000,
  ).catch(async () => added(before, await snapshot(bed.cluster.kubeconfigPath)));
  expect(left).toEqual(kept);
}, 900_000);
