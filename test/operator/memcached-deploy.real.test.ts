// The scaffolded memcached operator deployed by `tsop deploy` runs for real on the test bed: its
// image built by `tsop image build` and pushed to a registry on 127.0.0.1, its pod run by the pod
// runner as a process with the projected service-account token, in-cluster config and the
// generated RBAC as its only permissions. The sample CR is reconciled by that process (finalizer,
// status, Deployment); its /metrics answers a scraper holding the metrics-reader ClusterRole and
// refuses other tokens (403) and none (401), the API server deciding; two replicas elect one leader through the Lease, and when the leader's
// process is killed another takes over and reconciles a change made meanwhile; `tsop undeploy`
// leaves no process. With one verb removed from an @Rbac declaration the rebuilt operator is
// refused by the API server, and says so in its logs and the CR's Degraded condition.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse } from "yaml";
import type { KubeObject } from "../../src/kube/objects.js";
import type { TestRegistry } from "../support/registry.js";
import type { OlmBed } from "../support/rig/olm-bed.js";
import { type DeployBed, startDeployBed } from "./deploy-bed.js";
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
  managerPods,
  runningManager,
  tsop,
} from "./support.js";

const SYSTEM = "memcached-operator-system";
const LEASE = "memcached-operator.example.com";
const DEPLOYMENT = "memcached-operator-controller-manager";
const METRICS_SERVICE = "memcached-operator-controller-manager-metrics-service";
// config/rbac/metrics_reader_role.yaml under config/default's namePrefix.
const METRICS_READER = "memcached-operator-metrics-reader";
let registry: TestRegistry;
let bed: OlmBed;
let deployBed: DeployBed | undefined;
let project: string;
let image: string;
let env: Env;

beforeAll(async () => {
  deployBed = await startDeployBed("tsop-operator-deploy-");
  ({ registry, bed, project } = deployBed);
  image = await buildImage(project, registry, "0.0.1");
  env = { KUBECONFIG: bed.cluster.kubeconfigPath };
}, 900_000);

afterAll(async () => {
  await deployBed?.stop();
}, 120_000);

async function memcached(name: string): Promise<KubeObject> {
  return kubectlJson(env, ["get", "memcached", name, "-n", "tenant"]);
}

async function deploymentReplicas(name: string): Promise<number | undefined> {
  const d = await kubectlJson(env, ["get", "deployment", name, "-n", "tenant"]);
  return (d.spec as { replicas?: number }).replicas;
}

async function holder(): Promise<string> {
  const lease = await kubectlJson(env, ["get", "lease", LEASE, "-n", SYSTEM]);
  return String((lease.spec as { holderIdentity?: string }).holderIdentity ?? "");
}

/**
 * A token of a ServiceAccount in "tenant" (`kubectl create token`), bound to `clusterRole` when
 * one is given.
 */
async function serviceAccountToken(name: string, clusterRole?: string): Promise<string> {
  const created = await kubectl(env, ["create", "serviceaccount", name, "-n", "tenant"]);
  expect(created.exitCode, created.all).toBe(0);
  if (clusterRole) {
    const bound = await kubectl(env, [
      "create",
      "clusterrolebinding",
      name,
      `--clusterrole=${clusterRole}`,
      `--serviceaccount=tenant:${name}`,
    ]);
    expect(bound.exitCode, bound.all).toBe(0);
  }
  const token = await kubectl(env, ["create", "token", name, "-n", "tenant"]);
  expect(token.exitCode, token.stderr).toBe(0);
  return token.stdout.trim();
}

/** GET https://<metrics Service>:8443/metrics with curl, from the pod network; the token is never printed. */
async function scrape(token: string | undefined): Promise<{ status: number; body: string }> {
  const url = `https://${METRICS_SERVICE}.${SYSTEM}.svc:8443/metrics`;
  // The header goes in curl's config on stdin, not on its command line.
  const config = token === undefined ? "" : `header = "Authorization: Bearer ${token}"\n`;
  const curl = await execa(
    "curl",
    [
      "--silent",
      "--show-error",
      "--insecure",
      "--proxy",
      bed.olm.runner.clusterProxy,
      "--config",
      "-",
      "--write-out",
      "\n%{http_code}",
      url,
    ],
    { input: config, reject: false },
  );
  expect(curl.exitCode, curl.stderr).toBe(0);
  const cut = curl.stdout.lastIndexOf("\n");
  return { status: Number(curl.stdout.slice(cut + 1)), body: curl.stdout.slice(0, cut) };
}

const describeTenant = async () =>
  (await kubectl(env, ["get", "memcached,deployments", "-n", "tenant", "-o", "yaml"])).all?.slice(-6000) ??
  "";

it("tsop deploy: the operator's process reconciles the sample, holds the Lease, and undeploy leaves no process", async () => {
  await tsop(project, ["deploy", "--image", image, "--kubeconfig", bed.cluster.kubeconfigPath]);
  const manager = await runningManager(env, bed.olm.runner, SYSTEM, image);
  expect(await holder()).toMatch(new RegExp(`^${manager.name}_`));

  const applied = await kubectl(env, ["apply", "-k", "config/samples", "-n", "tenant"], { cwd: project });
  expect(applied.exitCode, applied.all).toBe(0);
  const cr = await eventually(
    "the sample reconciled by the operator (finalizer, Available)",
    async () => {
      const cr = await memcached("memcached-sample");
      return conditionOf(cr, "Available")?.status === "True" ? cr : undefined;
    },
    180_000,
    describeTenant,
  );
  expect(cr.metadata.finalizers).toEqual(["cache.example.com/finalizer"]);
  const deployment = await kubectlJson(env, ["get", "deployment", "memcached-sample", "-n", "tenant"]);
  expect(deployment.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Memcached", uid: cr.metadata.uid });
  expect(await managerLogs(env, SYSTEM, manager.name)).toMatch(/starting workers/);
  // Its metrics as Prometheus scrapes them with kubebuilder's ServiceMonitor: HTTPS to the metrics
  // Service from inside the cluster (here through the runner's pod network), a ServiceAccount
  // token as bearer, the self-signed certificate not verified (the monitor's insecureSkipVerify).
  // Not through the API server's service proxy: it authenticates its own caller and forwards
  // without that caller's token, so the Manager's TokenReview would see no token at all.
  const reader = await serviceAccountToken("metrics-scraper", METRICS_READER);
  const scraped = await scrape(reader);
  expect(scraped.status, scraped.body).toBe(200);
  expect(scraped.body).toMatch(
    /^controller_runtime_reconcile_total\{controller="memcached",result="success"\} [1-9]/m,
  );
  // The API server's verdicts, through the Manager's TokenReview and SubjectAccessReview.
  const stranger = await scrape(await serviceAccountToken("no-metrics-role"));
  expect(stranger).toEqual({
    status: 403,
    body: "Authorization denied for user system:serviceaccount:tenant:no-metrics-role\n",
  });
  expect((await scrape(undefined)).status).toBe(401);
  expect((await scrape("not-a-token")).status).toBe(401);

  // Two replicas: one leader; the other waits and reconciles nothing.
  const scaled = await kubectl(env, ["scale", "deployment", DEPLOYMENT, "-n", SYSTEM, "--replicas=2"]);
  expect(scaled.exitCode, scaled.all).toBe(0);
  const follower = await eventually("a second Ready manager pod with a process", async () => {
    const pods = await managerPods(env, SYSTEM);
    const other = pods.find(
      (p) => p.metadata.name !== manager.name && conditionOf(p, "Ready")?.status === "True",
    );
    return other && bed.olm.runner.podPids(SYSTEM, other.metadata.name ?? "").length > 0
      ? other.metadata.name
      : undefined;
  });
  // Its manager has started (it answers /readyz) but leads nothing.
  const before = await holder();
  expect(before).toMatch(new RegExp(`^${manager.name}_`));
  expect(await managerLogs(env, SYSTEM, follower!)).not.toMatch(/starting workers/);

  // The leader's process dies without a word (SIGKILL to its process group): another process
  // takes the Lease once it expires and reconciles the change made in the meantime.
  for (const pid of manager.pids) process.kill(-pid, "SIGKILL");
  const killedAt = Date.now();
  const patched = await kubectl(env, [
    "patch",
    "memcached",
    "memcached-sample",
    "-n",
    "tenant",
    "--type=merge",
    "-p",
    '{"spec":{"size":2}}',
  ]);
  expect(patched.exitCode, patched.all).toBe(0);
  const after = await eventually("a new Lease holder", async () => {
    const now = await holder();
    return now !== before && now !== "" ? now : undefined;
  });
  const takeoverSeconds = (Date.now() - killedAt) / 1000;
  console.log(
    `leader takeover after SIGKILL: ${takeoverSeconds.toFixed(1)} s (lease duration 15 s); new holder ${after}`,
  );
  await eventually(
    "the Deployment to follow spec.size=2",
    async () => (await deploymentReplicas("memcached-sample")) === 2,
    120_000,
    describeTenant,
  );
  const newLeaderPod = after.slice(0, after.lastIndexOf("_"));
  expect(await managerLogs(env, SYSTEM, newLeaderPod)).toMatch(/starting workers/);

  // Deleted while the operator runs: its finalizer runs.
  const deleted = await kubectl(env, [
    "delete",
    "memcached",
    "memcached-sample",
    "-n",
    "tenant",
    "--wait",
    "--timeout=90s",
  ]);
  expect(deleted.exitCode, deleted.all).toBe(0);
  expect(await managerLogs(env, SYSTEM, newLeaderPod)).toMatch(/Memcached is being deleted/);

  const pids = bed.olm.runner.pids();
  await tsop(project, ["undeploy", "--kubeconfig", bed.cluster.kubeconfigPath]);
  await eventually("no operator pod left on the runner", async () =>
    bed.olm.runner.podNames().every((p) => !p.startsWith(`${SYSTEM}/`)) ? true : undefined,
  );
  expect(pids.filter(alive)).toEqual([]);
  const gone = await kubectl(env, ["wait", "--for=delete", `namespace/${SYSTEM}`, "--timeout=120s"]);
  expect(gone.exitCode, gone.all).toBe(0);
}, 600_000);

it("the generated RBAC is all the operator has: without `create` on deployments it is refused, and says so", async () => {
  await edit(
    project,
    CONTROLLER,
    `verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],`,
    `verbs: ["get", "list", "watch", "update", "patch", "delete"],`,
  );
  await execa("npm", ["run", "build"], { cwd: project });
  const role = parse(await readFile(join(project, "config/rbac/role.yaml"), "utf8")) as {
    rules: Array<{ resources: string[]; verbs: string[] }>;
  };
  const deployments = role.rules.find((r) => r.resources.includes("deployments"));
  expect(deployments?.verbs).toEqual(["delete", "get", "list", "patch", "update", "watch"]);
  const narrowed = await buildImage(project, registry, "0.0.2");
  await tsop(project, ["deploy", "--image", narrowed, "--kubeconfig", bed.cluster.kubeconfigPath]);
  const manager = await runningManager(env, bed.olm.runner, SYSTEM, narrowed);

  // A CR of its own: whatever the first test left, this one meets only the narrowed operator.
  const cr = {
    apiVersion: "cache.example.com/v1alpha1",
    kind: "Memcached",
    metadata: { name: "narrowed", namespace: "tenant" },
    spec: { size: 1 },
  };
  const applied = await kubectl(env, ["apply", "-f", "-"], { input: JSON.stringify(cr) });
  expect(applied.exitCode, applied.all).toBe(0);
  const degraded = await eventually(
    "the Degraded condition",
    async () => {
      const condition = conditionOf(await memcached("narrowed"), "Degraded");
      return condition?.status === "True" ? condition : undefined;
    },
    180_000,
    describeTenant,
  );
  expect(degraded.reason).toBe("DeploymentFailed");
  expect(degraded.message).toMatch(/forbidden/);
  expect(degraded.message).toMatch(
    /system:serviceaccount:memcached-operator-system:memcached-operator-controller-manager/,
  );
  const logs = await managerLogs(env, SYSTEM, manager.name);
  expect(logs).toMatch(/deployments\.apps is forbidden/);
  expect((await kubectl(env, ["get", "deployment", "narrowed", "-n", "tenant"])).exitCode).not.toBe(0);

  await tsop(project, ["undeploy", "--delete-crds", "--kubeconfig", bed.cluster.kubeconfigPath]);
  await eventually("no operator pod left on the runner", async () =>
    bed.olm.runner.podNames().every((p) => !p.startsWith(`${SYSTEM}/`)) ? true : undefined,
  );
  expect(manager.pids.filter(alive)).toEqual([]);
}, 600_000);
