// kubectl against the test server (HTTPS: kubectl only sends credentials over TLS). CI installs
// Debian's kubernetes-client (1.20); set KUBECTL to try another binary.
import { execa } from "execa";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { memcachedCrd } from "./helpers.js";

const kubectlBin = process.env.KUBECTL ?? "kubectl";
const available = await execa(kubectlBin, ["version", "--client"], { reject: false }).then(
  (r) => r.exitCode === 0,
  () => false,
);

let cluster: TestCluster;
let dir: string;

async function kubectl(...args: string[]) {
  return execa(kubectlBin, args, {
    env: { KUBECONFIG: cluster.kubeconfigPath, HOME: dir },
    reject: false,
    cwd: dir,
  });
}

const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: ${image}
`;

// Missing kubectl fails the suite loudly (`bash .ci/run` installs it) rather than skipping it.
describe(`kubectl (${kubectlBin})`, () => {
  beforeAll(async () => {
    if (!available)
      throw new Error(`${kubectlBin} is not installed: apt-get install kubernetes-client (or set KUBECTL)`);
    cluster = await startTestCluster({ tls: true });
    dir = await mkdtemp(join(tmpdir(), "tsop-kubectl-"));
    await writeFile(join(dir, "deploy.yaml"), deployment("nginx:1"));
    await writeFile(join(dir, "deploy2.yaml"), deployment("nginx:2"));
    await writeFile(join(dir, "crd.json"), JSON.stringify(memcachedCrd));
  });
  afterAll(async () => {
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("lists, creates, reads and deletes", async () => {
    const ns = await kubectl("get", "namespaces");
    expect(ns.exitCode).toBe(0);
    expect(ns.stdout).toMatch(/^NAME\s+STATUS\s+AGE\ndefault\s+Active\s+\d+s/);
    expect(ns.stdout).toContain("kube-system");
    expect((await kubectl("create", "configmap", "foo", "--from-literal=a=b")).stdout).toBe(
      "configmap/foo created",
    );
    expect((await kubectl("get", "configmap", "foo")).stdout).toMatch(/^NAME\s+DATA\s+AGE\nfoo\s+1\s+\d+s$/);
    const json = JSON.parse((await kubectl("get", "configmap", "foo", "-o", "json")).stdout);
    expect(json).toMatchObject({ kind: "ConfigMap", data: { a: "b" }, metadata: { namespace: "default" } });
    expect((await kubectl("delete", "configmap", "foo")).stdout).toBe('configmap "foo" deleted');
    const missing = await kubectl("get", "configmap", "foo");
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('Error from server (NotFound): configmaps "foo" not found');
  });

  it("applies client-side and server-side, and reports apply conflicts", async () => {
    expect((await kubectl("apply", "-f", "deploy.yaml")).stdout).toBe("deployment.apps/web created");
    expect((await kubectl("apply", "-f", "deploy.yaml")).stdout).toBe("deployment.apps/web unchanged");
    const ssa = await kubectl("apply", "--server-side", "-f", "deploy.yaml");
    expect(ssa.stderr).toBe("");
    expect(ssa.stdout).toBe("deployment.apps/web serverside-applied");
    const conflict = await kubectl("apply", "--server-side", "--field-manager=other", "-f", "deploy2.yaml");
    expect(conflict.exitCode).toBe(1);
    expect(conflict.stderr).toContain("Apply failed with");
    expect(conflict.stderr).toContain('.spec.template.spec.containers[name="c"].image');
    const forced = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=other",
      "--force-conflicts",
      "-f",
      "deploy2.yaml",
    );
    expect(forced.exitCode).toBe(0);
    expect(
      (await kubectl("get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"))
        .stdout,
    ).toBe("nginx:2");
  });

  it("creates a CRD, waits for Established and serves its resources", async () => {
    expect((await kubectl("create", "-f", "crd.json")).exitCode).toBe(0);
    const wait = await kubectl(
      "wait",
      "--for=condition=Established",
      "crd/memcacheds.cache.example.com",
      "--timeout=20s",
    );
    expect(wait.stdout).toContain("condition met");
    const mc = await execa(kubectlBin, ["apply", "-f", "-"], {
      env: { KUBECONFIG: cluster.kubeconfigPath, HOME: dir },
      input:
        "apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: m\nspec:\n  size: 1\n",
      reject: false,
    });
    expect(mc.stdout).toBe("memcached.cache.example.com/m created");
    const table = await kubectl("get", "memcacheds");
    expect(table.stdout).toMatch(/^NAME\s+SIZE\s+AGE\nm\s+1\s+\d+s$/);
  });

  it("answers auth can-i from the forbid rules", async () => {
    expect((await kubectl("auth", "can-i", "create", "pods")).stdout).toBe("yes");
    const lift = cluster.forbid({ verb: "create", resource: "pods" });
    const no = await kubectl("auth", "can-i", "create", "pods");
    expect(no.stdout).toBe("no");
    lift();
  });
});
