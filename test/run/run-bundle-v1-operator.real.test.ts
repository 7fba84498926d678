// OLM v1 end to end with the operator's own process, in a namespace enforcing Pod Security
// `restricted`: the scaffolded memcached operator (`tsop init` + `create api`) built by `tsop image
// build` and pushed to a TLS registry on 127.0.0.1, bundled at v0.0.1 and v0.0.2 with
// `--use-image-digests`, installed by `tsop run bundle --olm v1` through catalogd v1.11.0 and
// operator-controller v1.2.0 (local processes: test/support/catalogd.ts, operator-controller.ts).
// The Deployment operator-controller applies is run by the pod runner (test/support/rig/): the
// operator's own process reconciles the sample (finalizer, Available, the operand's Deployment),
// `run bundle-upgrade --olm v1` hands over to the v0.0.2 process, which reconciles again; deleting
// the sample runs its finalizer, and `cleanup --olm v1` leaves nothing (a snapshot, compared). Every
// pod here is created through the kube-apiserver's Pod Security admission: that the operator's and
// the operand's pods run at all is the server's word that they are admitted under restricted (a
// refusal the workload controllers record fails the wait for the operator at once, with its reason).
// The bed is the OLM lane's (startOlmBed without OLM v0): the pod runner's network needs the
// kube-apiserver's egress selector, set before the cluster starts.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { DEFAULT_WORKLOAD_IMAGE } from "../../src/scaffold/api.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import {
  alive,
  CONTROLLER,
  conditionOf,
  edit,
  type Env,
  eventually,
  kubectl,
  kubectlJson,
  managerLogs,
  managerPods,
  scaffoldMemcached,
  tsop,
} from "../operator/support.js";
import { type Catalogd, startCatalogd } from "../support/catalogd.js";
import { type OperatorController, startOperatorController } from "../support/operator-controller.js";
import { skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, snapshot } from "./bed.js";

const NS = "memcached";
const PKG = "memcached-operator";
let registry: TestRegistry;
let bed: OlmBed;
let catalogd: Catalogd;
let operatorController: OperatorController;
let work: string;
let project: string;
let env: Env;
let operandDigest: string;

// The operand, mirrored to the local registry as a disconnected user does (docker.io is not
// reachable): a Node.js server on the port its last argument names (the runner rewrites it).
const OPERAND = `require("http").createServer((q, s) => s.end("memcached stand-in")).listen(Number(process.argv[1]), () => console.log("serving"))`;

beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  work = await mkdtemp(join(tmpdir(), "tsop-v1-operator-"));
  const [, scaffolded, started] = await Promise.all([
    pushNodeBase(registry, "base/node", "20"),
    scaffoldMemcached(work),
    startOlmBed({ olm: false, namespaces: [NS] }),
  ]);
  project = scaffolded;
  bed = started;
  env = { KUBECONFIG: bed.cluster.kubeconfigPath };
  const label = await kubectl(env, [
    "label",
    "namespace",
    NS,
    "pod-security.kubernetes.io/enforce=restricted",
  ]);
  expect(label.exitCode, label.all).toBe(0);
  // The guard: the server's Pod Security admission refuses a non-compliant pod in this namespace.
  const refused = await kubectl(env, ["create", "--dry-run=server", "-n", NS, "-f", "-"], {
    input: JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "noncompliant" },
      spec: { containers: [{ name: "c", image: `${registry.host}/base/node:20` }] },
    }),
  });
  expect(refused.stderr).toContain('violates PodSecurity "restricted:latest"');
  // catalogd and operator-controller pull from the registry trusting its CA (and nothing else).
  const caDir = join(registry.dir, "trust");
  await mkdir(caDir);
  await writeFile(join(caDir, "ca.crt"), await readFile(registry.caFile!));
  catalogd = await startCatalogd(bed.cluster, { pullCaDir: caDir });
  operatorController = await startOperatorController(bed.cluster, {
    catalogdCaFile: catalogd.caFile,
    pullCaDir: caDir,
  });
  await pushNodeBase(registry, "mirror/memcached", "1.27", { cmd: ["-e", OPERAND, "8080"] });
  operandDigest = (await skopeoInspect(registry, "mirror/memcached:1.27")).Digest;
  await edit(
    project,
    "config/manager/manager.yaml",
    DEFAULT_WORKLOAD_IMAGE,
    `${registry.host}/mirror/memcached:1.27`,
  );
}, 900_000);

afterAll(async () => {
  await operatorController?.stop();
  await catalogd?.stop();
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

const trust = () => ["--ca-file", registry.caFile!];
const kubeconfig = () => ["--kubeconfig", bed.cluster.kubeconfigPath];

/** image build → bundle --use-image-digests → bundle push, at `version`; returns [pinned image, bundle image]. */
async function release(version: string): Promise<[string, string]> {
  const pinned = await tsop(project, [
    "image",
    "build",
    "--base",
    `${registry.host}/base/node:20`,
    "--push",
    `${registry.host}/${PKG}:${version}`,
    ...trust(),
    "-q",
  ]);
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
    ...trust(),
  ]);
  const bundle = `${registry.host}/${PKG}-bundle:v${version}`;
  await tsop(project, ["bundle", "push", bundle, ...trust()]);
  return [pinned, bundle];
}

async function sample(): Promise<KubeObject> {
  return kubectlJson(env, ["get", "memcached", "memcached-sample", "-n", NS]);
}

async function deployment(): Promise<KubeObject> {
  return kubectlJson(env, ["get", "deployment", "memcached-sample", "-n", NS]);
}

const describe = async () => {
  const objects = await kubectl(env, [
    "get",
    "memcached,deployments,replicasets,pods,events",
    "-n",
    NS,
    "-o",
    "yaml",
  ]);
  const tail = async (file: string) => (await readFile(file, "utf8").catch(() => "")).slice(-3000);
  return `${objects.all?.slice(-8000) ?? ""}\noperator-controller:\n${await tail(operatorController.logFile)}`;
};

/** Pod Security's refusals in the namespace, as the workload controllers record them (FailedCreate events). */
async function podSecurityRefusals(): Promise<string[]> {
  const events = await kubectlJson<{ items: Array<{ message?: string }> }>(env, ["get", "events", "-n", NS]);
  return events.items.map((e) => e.message ?? "").filter((m) => m.includes("violates PodSecurity"));
}

/**
 * The one Ready manager pod running `image`, with a live process of the pod runner behind it; fails
 * at once with Pod Security's refusal when the server refused the operator's pod.
 */
async function runningOperator(image: string): Promise<{ name: string; pids: number[] }> {
  type Found = { refusals: string[] } | { name: string; pids: number[] };
  const found = await eventually<Found>(
    `a Ready manager pod running ${image} in ${NS}`,
    async () => {
      const refusals = await podSecurityRefusals();
      if (refusals.length > 0) return { refusals };
      const pod = (await managerPods(env, NS)).find((p) => p.spec.containers.some((c) => c.image === image));
      if (!pod || conditionOf(pod, "Ready")?.status !== "True") return undefined;
      const pids = bed.olm.runner.podPids(NS, pod.metadata.name ?? "");
      return pids.length > 0 ? { name: pod.metadata.name ?? "", pids } : undefined;
    },
    240_000,
    describe,
  );
  if ("refusals" in found)
    throw new Error(`Pod Security refused a pod in ${NS}:\n${found.refusals.join("\n")}`);
  return found;
}

it("run bundle --olm v1 → the operator's process reconciles under restricted; bundle-upgrade hands over to v0.0.2; cleanup leaves nothing", async () => {
  const before = await snapshot(bed.cluster.kubeconfigPath);
  const [v1, bundle1] = await release("0.0.1");
  const installed = await tsop(project, [
    "run",
    "bundle",
    bundle1,
    "--olm",
    "v1",
    "-n",
    NS,
    ...trust(),
    "--timeout",
    "5m",
    "-o",
    "json",
    ...kubeconfig(),
  ]);
  const { clusterExtension } = JSON.parse(installed) as { clusterExtension: string };
  const extension = await kubectlJson(env, ["get", "clusterextension", clusterExtension]);
  expect((extension.status as { install?: unknown }).install).toEqual({
    bundle: { name: `${PKG}.v0.0.1`, version: "0.0.1" },
  });
  // The Deployment operator-controller applied, run by the pod runner: the operator really runs.
  const first = await runningOperator(v1);
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
  // The operand's pod, admitted under restricted too, runs the digest the CSV pins.
  const pinnedOperand = `${registry.host}/mirror/memcached@${operandDigest}`;
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
  expect((operandPod.spec as { containers: Array<{ image: string }> }).containers[0]!.image).toBe(
    pinnedOperand,
  );
  expect(bed.olm.runner.podPids(NS, operandPod.metadata.name ?? "")).toHaveLength(1);

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
    "--olm",
    "v1",
    ...trust(),
    "--timeout",
    "5m",
    ...kubeconfig(),
  ]);
  const moved = await kubectlJson(env, ["get", "clusterextension", clusterExtension]);
  expect((moved.status as { install?: unknown }).install).toEqual({
    bundle: { name: `${PKG}.v0.0.2`, version: "0.0.2" },
  });
  const second = await runningOperator(v2);
  await eventually(
    "the v0.0.2 operator to label the existing sample's Deployment",
    async () => (await deployment()).metadata.labels?.["example.com/operator-version"] === "0.0.2",
    180_000,
    describe,
  );
  await eventually("the v0.0.1 process to be gone", async () => first.pids.every((pid) => !alive(pid)));

  // The finalizer needs the operator: the sample goes before the operator does.
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
  expect(await podSecurityRefusals()).toEqual([]);

  const cleanup = await tsop(project, ["cleanup", PKG, "--olm", "v1", "--timeout", "3m", ...kubeconfig()]);
  expect(cleanup).toContain("ClusterExtension");
  await eventually("no pod of the namespace left on the runner", async () =>
    bed.olm.runner.podNames().every((p) => !p.startsWith(`${NS}/`)) ? true : undefined,
  );
  expect([...first.pids, ...second.pids].filter(alive)).toEqual([]);
  // OLM v1 owns the CRD: cleanup takes it too, and nothing is left.
  const left = await eventually(
    "cleanup to leave nothing",
    async () => {
      const left = added(before, await snapshot(bed.cluster.kubeconfigPath));
      return left.length === 0 ? left : undefined;
    },
    120_000,
  ).catch(async () => added(before, await snapshot(bed.cluster.kubeconfigPath)));
  expect(left).toEqual([]);
}, 1_200_000);
