// The real control plane of tsop/testing: etcd + kube-apiserver v1.34.4 behind the fault proxy,
// driven with kubectl (the independent oracle) through the kubeconfig startTestCluster writes.
import { execa } from "execa";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { request } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealTestCluster, startTestCluster } from "../../../src/testing/index.js";

let cluster: RealTestCluster;
let dir: string;
let startedInMs: number;

async function kubectl(kubeconfig: string, ...args: string[]) {
  return execa("kubectl", ["--kubeconfig", kubeconfig, ...args], {
    reject: false,
    cwd: dir,
    env: { HOME: dir },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tsop-real-cp-"));
  const started = Date.now();
  cluster = await startTestCluster({ controlPlane: "real" });
  startedInMs = Date.now() - started;
});
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('startTestCluster({ controlPlane: "real" })', () => {
  it("starts etcd and kube-apiserver in seconds and kubectl sees the real server version", async () => {
    expect(cluster.processes().map((p) => p.name)).toEqual(["etcd", "kube-apiserver"]);
    expect(startedInMs).toBeLessThan(30_000);
    const r = await kubectl(cluster.kubeconfigPath, "version", "-o", "json");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).serverVersion.gitVersion).toBe("v1.34.4");
    expect(cluster.kubernetesVersion).toBe("v1.34.4");
    expect(cluster.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it("kubectl applies, gets and deletes objects, and the proxy logs the admin's requests", async () => {
    const manifest = join(dir, "cm.yaml");
    await writeFile(
      manifest,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\ndata:\n  hello: world\n",
    );
    const applied = await kubectl(cluster.kubeconfigPath, "apply", "-f", manifest);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("configmap/greeting created");
    const got = await kubectl(
      cluster.kubeconfigPath,
      "get",
      "configmap",
      "greeting",
      "-o",
      "jsonpath={.data.hello}",
    );
    expect(got.stdout).toBe("world");
    expect(
      cluster.requests.some(
        (r) => r.method === "GET" && r.path.includes("/configmaps/greeting") && r.user === "tsop-admin",
      ),
    ).toBe(true);
    const deleted = await kubectl(cluster.kubeconfigPath, "delete", "-f", manifest);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    const gone = await kubectl(cluster.kubeconfigPath, "get", "configmap", "greeting");
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toContain('configmaps "greeting" not found');
  });

  it("authorizes with RBAC: a certificate user is forbidden until a RoleBinding grants access", async () => {
    const alice = join(dir, "alice.kubeconfig");
    await writeFile(alice, cluster.kubeconfigFor("alice", ["developers"]));
    const denied = await kubectl(alice, "get", "configmaps");
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toContain(
      'User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    // A Role of its own: "view" is filled in by controller-manager's aggregation controller, not running here.
    const role = await kubectl(
      cluster.kubeconfigPath,
      "create",
      "role",
      "cm-reader",
      "--verb=list",
      "--resource=configmaps",
    );
    expect(role.exitCode, role.stderr).toBe(0);
    const granted = await kubectl(
      cluster.kubeconfigPath,
      "create",
      "rolebinding",
      "developers-read",
      "--role=cm-reader",
      "--group=developers",
    );
    expect(granted.exitCode, granted.stderr).toBe(0);
    // The authorizer sees the new binding once its informer has it: moments later, as on any cluster.
    let allowed = await kubectl(alice, "get", "configmaps", "-o", "name");
    for (let i = 0; i < 50 && allowed.exitCode !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      allowed = await kubectl(alice, "get", "configmaps", "-o", "name");
    }
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    expect(allowed.stderr).not.toContain("Forbidden");
  });

  it("passes identity on through the fault proxy: a client cannot claim groups with X-Remote-* headers", async () => {
    const yaml = cluster.kubeconfigFor("mallory");
    const field = (name: string) =>
      Buffer.from(new RegExp(`${name}: (\\S+)`).exec(yaml)![1]!, "base64").toString();
    const whoami = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          `${cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
          {
            method: "POST",
            ca: cluster.caCertificate,
            cert: field("client-certificate-data"),
            key: field("client-key-data"),
            headers: { "content-type": "application/json", ...headers },
          },
          (res) => {
            let body = "";
            res.on("data", (d) => (body += String(d)));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }));
      });
    const review = await whoami({ "X-Remote-User": "admin", "X-Remote-Group": "system:masters" });
    expect(review.status, review.body).toBe(201);
    expect(JSON.parse(review.body).status.userInfo).toEqual({
      username: "mallory",
      groups: ["system:authenticated"],
    });
  });
});
