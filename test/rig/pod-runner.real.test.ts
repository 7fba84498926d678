// The test bed's pod runner as a kubelet, seen through kubectl on the real kube-apiserver: pods
// whose image comes from a registry on 127.0.0.1 (a Node.js base this machine assembles) really
// run; exit codes, restarts with CrashLoopBackOff, lastState, HTTP readiness and liveness probes,
// `kubectl logs` (and --previous), the pod's user and read-only root filesystem, runAsNonRoot,
// fieldRef env and the projected service-account token (the container asks the API server who it
// is) are what a kubelet would show. A pod whose image the bed cannot pull stays kwok's.
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";

const NS = "pods";
let registry: TestRegistry;
let bed: OlmBed;
let image: string;

beforeAll(async () => {
  registry = await startRegistry();
  await pushNodeBase(registry, "base/node", "20");
  image = `${registry.host}/base/node:20`;
  bed = await startOlmBed({ olm: false, namespaces: [NS] });
}, 600_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
}, 120_000);

async function kubectl(args: string[], input?: string) {
  return execa("kubectl", args, {
    env: { KUBECONFIG: bed.cluster.kubeconfigPath },
    input,
    reject: false,
    all: true,
  });
}

async function apply(objects: object[]): Promise<void> {
  const applied = await kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  );
  expect(applied.exitCode, applied.all).toBe(0);
}

async function getPod(name: string): Promise<KubeObject> {
  const got = await kubectl(["get", "pod", "-n", NS, name, "-o", "json"]);
  expect(got.exitCode, got.all).toBe(0);
  return JSON.parse(got.stdout) as KubeObject;
}

type Status = {
  phase?: string;
  conditions?: Array<{ type: string; status: string }>;
  containerStatuses?: Array<{
    ready: boolean;
    restartCount: number;
    state: Record<string, { reason?: string; message?: string; exitCode?: number }>;
    lastState: Record<string, { reason?: string; message?: string; exitCode?: number }>;
    imageID: string;
  }>;
};

/** Polls the pod until `check` returns a value (kubectl is the oracle; every poll a process start). */
async function until<T>(name: string, what: string, check: (s: Status) => T | undefined): Promise<T> {
  let last: Status = {};
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    last = (await getPod(name)).status as Status;
    const value = check(last);
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(
    `pod ${name}: timed out waiting for ${what}; last status:\n${JSON.stringify(last, null, 2)}`,
  );
}

const condition = (s: Status, type: string) => s.conditions?.find((c) => c.type === type)?.status;

function nodePod(
  name: string,
  script: string,
  spec: Record<string, unknown> = {},
  container: Record<string, unknown> = {},
) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS },
    spec: {
      terminationGracePeriodSeconds: 2,
      ...spec,
      containers: [{ name: "main", image, args: ["-e", script], ...container }],
    },
  };
}

it("a container that exits 3 is restarted with back-off: CrashLoopBackOff, restartCount, lastState, logs --previous", async () => {
  await apply([nodePod("crash", "console.log('crash run at', Date.now()); process.exit(3)")]);
  await until("crash", "CrashLoopBackOff after a restart", (s) => {
    const c = s.containerStatuses?.[0];
    return (
      c && c.restartCount >= 1 && c.state.waiting?.reason === "CrashLoopBackOff" && c.lastState.terminated
    );
  });
  const status = (await getPod("crash")).status as Status;
  const c = status.containerStatuses![0]!;
  expect(c.lastState.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
  expect(c.ready).toBe(false);
  expect(condition(status, "Ready")).toBe("False");
  expect(status.phase).toBe("Running");
  expect(c.imageID).toMatch(new RegExp(`^${registry.host}/base/node@sha256:[0-9a-f]{64}$`));
  const current = await kubectl(["logs", "-n", NS, "crash"]);
  expect(current.exitCode, current.all).toBe(0);
  expect(current.stdout).toMatch(/^crash run at \d+$/);
  const previous = await kubectl(["logs", "-n", NS, "crash", "--previous"]);
  expect(previous.exitCode, previous.all).toBe(0);
  expect(previous.stdout).toMatch(/^crash run at \d+$/);
}, 180_000);

// A server whose /readyz fails until /make-ready is called and whose /healthz fails once /make-sick
// is; the test calls both through the API server's pod proxy (egress to the pod IP).
const SERVER = `
let ready = false, sick = false;
require("http").createServer((req, res) => {
  if (req.url === "/make-ready") ready = true;
  if (req.url === "/make-sick") sick = true;
  const code = req.url === "/readyz" ? (ready ? 200 : 503) : req.url === "/healthz" ? (sick ? 500 : 200) : 200;
  if (req.url !== "/healthz") console.log(req.url, code);
  res.writeHead(code).end(String(code));
}).listen(8080, () => console.log("listening"));
`;

it("HTTP probes: not Ready while /readyz fails, Ready once it passes, restarted when /healthz fails", async () => {
  const probe = (path: string) => ({ httpGet: { path, port: 8080 }, periodSeconds: 1, failureThreshold: 2 });
  await apply([
    nodePod(
      "probed",
      SERVER,
      {},
      {
        ports: [{ containerPort: 8080, name: "http" }],
        readinessProbe: probe("/readyz"),
        livenessProbe: probe("/healthz"),
      },
    ),
  ]);
  // The probe has answered 503 several times (the server logs each call) and the pod is not Ready.
  for (const deadline = Date.now() + 120_000; ;) {
    const logs = await kubectl(["logs", "-n", NS, "probed"]);
    if ((logs.stdout.match(/\/readyz 503/g) ?? []).length >= 3) break;
    if (Date.now() > deadline) throw new Error(`no failed readiness probes seen:\n${logs.all}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  const notReady = (await getPod("probed")).status as Status;
  expect(notReady.phase).toBe("Running");
  expect(condition(notReady, "Ready")).toBe("False");
  expect(notReady.containerStatuses![0]!.ready).toBe(false);

  const proxy = `/api/v1/namespaces/${NS}/pods/probed:8080/proxy`;
  expect((await kubectl(["get", "--raw", `${proxy}/make-ready`])).stdout).toBe("200");
  await until("probed", "Ready", (s) => condition(s, "Ready") === "True");

  expect((await kubectl(["get", "--raw", `${proxy}/make-sick`])).stdout).toBe("200");
  const restarted = await until("probed", "a restart after failed liveness", (s) => {
    const c = s.containerStatuses?.[0];
    return c && c.restartCount >= 1 && c.lastState.terminated ? c : undefined;
  });
  expect(restarted.lastState.terminated?.message).toMatch(/Liveness probe failed/);
  const events = await kubectl([
    "get",
    "events",
    "-n",
    NS,
    "--field-selector",
    "involvedObject.name=probed",
    "-o",
    "json",
  ]);
  const reasons = (JSON.parse(events.stdout) as { items: Array<{ reason: string }> }).items.map(
    (e) => e.reason,
  );
  expect(reasons).toContain("Unhealthy");
  // The new run starts with /readyz failing again: not Ready until told.
  await until("probed", "running again", (s) => s.containerStatuses?.[0]?.state.running !== undefined);
  expect(condition((await getPod("probed")).status as Status, "Ready")).toBe("False");
}, 180_000);

// Reports who and where it runs, then asks the API server who its token is.
const IDENTITY = `
const fs = require("fs"), https = require("https");
const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
console.log("uid", process.getuid(), "gid", process.getgid());
console.log("env", process.env.POD_NAMESPACE, process.env.POD_NAME, process.env.OPERATOR_CONDITION_NAME);
try { fs.writeFileSync("/tmp/x", "x"); console.log("rootfs writable"); } catch (e) { console.log("rootfs", e.code); }
const req = https.request({
  host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, method: "POST",
  path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", ca: fs.readFileSync(sa + "/ca.crt"),
  headers: { authorization: "Bearer " + fs.readFileSync(sa + "/token", "utf8"), "content-type": "application/json" },
}, (res) => { let b = ""; res.on("data", (d) => (b += d)); res.on("end", () => {
  console.log("user", JSON.parse(b).status.userInfo.username, fs.readFileSync(sa + "/namespace", "utf8"));
}); });
req.end(JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }));
`;

it("runs as runAsUser/runAsGroup with a read-only root filesystem, fieldRef env, and its own bound service-account token", async () => {
  await apply([
    nodePod(
      "identity",
      IDENTITY,
      { restartPolicy: "Never", securityContext: { runAsUser: 1234, runAsGroup: 2345 } },
      {
        securityContext: { readOnlyRootFilesystem: true, runAsNonRoot: true },
        env: [
          { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "OPERATOR_CONDITION_NAME", value: "identity.v0.0.1" },
        ],
      },
    ),
  ]);
  const done = await until("identity", "Succeeded", (s) =>
    s.phase === "Succeeded" || s.phase === "Failed" ? s : undefined,
  );
  expect(done.phase).toBe("Succeeded");
  expect(done.containerStatuses![0]!.state.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
  const logs = await kubectl(["logs", "-n", NS, "identity"]);
  expect(logs.stdout.split("\n")).toEqual([
    "uid 1234 gid 2345",
    "env pods identity identity.v0.0.1",
    "rootfs EROFS",
    `user system:serviceaccount:${NS}:default ${NS}`,
  ]);
}, 180_000);

it("runAsNonRoot with an image that runs as root: CreateContainerConfigError with kubelet's message", async () => {
  await apply([nodePod("rooted", "console.log('never')", { securityContext: { runAsNonRoot: true } })]);
  const waiting = await until("rooted", "CreateContainerConfigError", (s) =>
    s.containerStatuses?.[0]?.state.waiting?.reason === "CreateContainerConfigError"
      ? s.containerStatuses[0]!.state.waiting
      : undefined,
  );
  expect(waiting.message).toMatch(
    /^container has runAsNonRoot and image will run as root \(pod: "rooted_pods\(.+\)", container: main\)$/,
  );
  expect(((await getPod("rooted")).status as Status).phase).toBe("Pending");
}, 120_000);

it("a pod whose image the bed cannot pull stays kwok's: Running without a process, and kubectl logs says so", async () => {
  await apply([
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "simulated", namespace: NS },
      spec: { containers: [{ name: "main", image: "docker.io/library/busybox:1.36" }] },
    },
  ]);
  await until("simulated", "Ready", (s) => condition(s, "Ready") === "True");
  expect(bed.olm.runner.podNames()).not.toContain(`${NS}/simulated`);
  const logs = await kubectl(["logs", "-n", NS, "simulated"]);
  expect(logs.exitCode).not.toBe(0);
  expect(logs.all).toMatch(/simulated by kwok on the test bed/);
}, 120_000);

it("deleting a pod stops its process (SIGTERM, then the grace period)", async () => {
  await apply([
    nodePod(
      "doomed",
      "setInterval(() => {}, 1000); process.on('SIGTERM', () => { console.log('bye'); process.exit(0); })",
    ),
  ]);
  await until("doomed", "Ready", (s) => condition(s, "Ready") === "True");
  expect(bed.olm.runner.podPids(NS, "doomed")).toHaveLength(1);
  const deleted = await kubectl(["delete", "pod", "-n", NS, "doomed", "--wait=true"]);
  expect(deleted.exitCode, deleted.all).toBe(0);
  for (;;) {
    if (!bed.olm.runner.podNames().includes(`${NS}/doomed`)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(bed.olm.runner.podPids(NS, "doomed")).toEqual([]);
}, 120_000);
