// The dev loop on the real test bed (kube-apiserver, etcd, controller-manager, scheduler, kwok):
// a scaffolded operator whose manager env maps RELATED_IMAGE_MEMCACHED into its own variable goes
// through `tsop install`, `tsop run local --watch` (its reconciler's Deployment made available by
// kwok, the CR's status, a source change restarting it), `tsop uninstall` with a CR and its
// finalizer, and `tsop deploy` + `tsop undeploy`, after which every object is as it was.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeClient } from "../../src/kube/client.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { execa } from "execa";
import { runTsop } from "../support/cli.js";
import { rigBinary } from "../support/rig.js";
import { scaffoldOperator } from "./project.js";
import { clientFor, eventually, isAlive, snapshot, startTsop } from "./support.js";

const MEMCACHED = "cache.example.com/v1alpha1";
const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  name: "memcacheds.cache.example.com",
};
const MANAGER_ARGS = ["--", "--metrics-bind-address", "0", "--health-probe-bind-address", "0"];
const IMAGE = "registry.test:5000/mirror/memcached:1.6.99";

let cluster: RealTestCluster;
let client: KubeClient;
let dir: string;
let removeProject: (() => Promise<void>) | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real", workloads: true });
  client = await clientFor(cluster.kubeconfigPath);
  env = { KUBECONFIG: cluster.kubeconfigPath };
  ({ dir, remove: removeProject } = await scaffoldOperator());
  // The manager env builds the operand image from a registry variable, and maps the RELATED_IMAGE_
  // variable into the operator's own MEMCACHED_IMAGE, which the reconciler reads.
  const managerFile = join(dir, "config/manager/manager.yaml");
  const manager = await readFile(managerFile, "utf8");
  const mapped = manager.replace(
    /- name: RELATED_IMAGE_MEMCACHED\n(\s+)value: .*\n/,
    [
      "- name: IMAGE_REGISTRY",
      "$1value: registry.test:5000/mirror",
      "        - name: RELATED_IMAGE_MEMCACHED",
      "$1value: $(IMAGE_REGISTRY)/memcached:1.6.99",
      "        - name: MEMCACHED_IMAGE",
      "$1value: $(RELATED_IMAGE_MEMCACHED)",
      "",
    ].join("\n"),
  );
  expect(mapped).not.toBe(manager);
  await writeFile(managerFile, mapped);
  const controllerFile = join(dir, "src/controllers/memcached.controller.ts");
  const controller = await readFile(controllerFile, "utf8");
  const reads = controller.replace(
    "image: spec.image ??",
    "image: spec.image ?? process.env.MEMCACHED_IMAGE ??",
  );
  expect(reads).not.toBe(controller);
  await writeFile(controllerFile, reads);
  const gen = await runTsop(["generate"], { cwd: dir, timeoutMs: 180_000 });
  expect(gen.exitCode, gen.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  client?.close();
  await cluster?.stop();
  await removeProject?.();
});

const sampleRef = {
  apiVersion: MEMCACHED,
  kind: "Memcached",
  namespace: "default",
  name: "memcached-sample",
};
const deploymentRef = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  namespace: "default",
  name: "memcached-sample",
};

async function createSample(): Promise<void> {
  const text = await readFile(join(dir, "config/samples/cache_v1alpha1_memcached.yaml"), "utf8");
  const sample = parseAllDocuments(text)[0]!.toJS() as KubeObject;
  await client.create({ ...sample, metadata: { ...sample.metadata, namespace: "default" } });
}

describe("the dev loop on the real control plane", () => {
  it("install, run local --watch: the reconciler's Deployment becomes available, the CR reports it, a change restarts it", async () => {
    const install = await runTsop(["install"], { cwd: dir, env, timeoutMs: 180_000 });
    expect(install.exitCode, install.stderr).toBe(0);
    expect(install.stdout).toMatch(/CustomResourceDefinition\s+memcacheds\.cache\.example\.com\s+created/);
    const crd = await client.get(CRD);
    expect(crd?.status?.conditions?.find((c: { type: string }) => c.type === "Established")?.status).toBe(
      "True",
    );

    const run = startTsop(["run", "local", "--watch", ...MANAGER_ARGS], dir, env);
    await run.waitFor(/manager running \(pid (\d+)\)/, 1, 300_000);
    await run.waitFor(/watching src\/.* for changes/);
    const pid = Number(/manager running \(pid (\d+)\)/.exec(run.stderr())?.[1]);
    expect(run.stderr()).toContain(`using cluster ${cluster.url} (context "tsop-test"), namespace default`);
    expect(run.stderr()).toMatch(
      /manager env from config\/manager: .*IMAGE_REGISTRY, RELATED_IMAGE_MEMCACHED, MEMCACHED_IMAGE/,
    );

    await createSample();
    // controller-manager makes the ReplicaSet, the scheduler binds the pod to the kwok node, kwok
    // makes it Ready: the Deployment becomes available as in a real cluster.
    const deployment = await eventually(
      "the reconciler's Deployment to be available",
      async () => {
        const d = await client.get(deploymentRef);
        return d?.status?.availableReplicas === 1 ? d : undefined;
      },
      120_000,
    );
    expect(deployment.spec.template.spec.containers[0].image).toBe(IMAGE);
    await eventually("the CR's Available condition", async () => {
      const cr = await client.get(sampleRef);
      const available = (cr?.status?.conditions ?? []).find((c: { type: string }) => c.type === "Available");
      return available?.status === "True" ? true : undefined;
    });

    const controllerFile = join(dir, "src/controllers/memcached.controller.ts");
    const source = await readFile(controllerFile, "utf8");
    await writeFile(
      controllerFile,
      source.replace(
        '"app.kubernetes.io/instance": name,',
        '"app.kubernetes.io/instance": name,\n    "example.com/revision": "2",',
      ),
    );
    await run.waitFor(/memcached\.controller\.ts changed: rebuilding/, 1, 60_000);
    await run.waitFor(/manager running \(pid \d+\)/, 2, 300_000);
    expect(isAlive(pid)).toBe(false);
    await eventually("the restarted reconciler's label on the Deployment", async () => {
      const d = await client.get(deploymentRef);
      return d?.metadata.labels?.["example.com/revision"] === "2" ? true : undefined;
    });

    run.process.kill("SIGINT");
    const result = await run.process;
    expect(result.exitCode, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(/manager stopped \(exit code 0\) after 1 restart\(s\)/);
    const newest = [...run.stderr().matchAll(/manager running \(pid (\d+)\)/g)].at(-1)?.[1];
    expect(isAlive(Number(newest))).toBe(false);
  });

  it("uninstall refuses with a CR, waits for the running operator's finalizer, and reports one nobody removes", async () => {
    const refused = await runTsop(["uninstall"], { cwd: dir, env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("1 custom resource(s) still exist: Memcached default/memcached-sample");

    // With the operator running, --force deletes the CR, its reconciler removes the finalizer, then the CRD goes.
    const run = startTsop(["run", "local", "--no-install", ...MANAGER_ARGS], dir, env);
    await run.waitFor(/manager running \(pid \d+\)/, 1, 120_000);
    const done = await runTsop(["uninstall", "--force"], { cwd: dir, env, timeoutMs: 180_000 });
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/Memcached\s+default\s+memcached-sample\s+deleted/);
    expect(done.stdout).toMatch(/CustomResourceDefinition\s+memcacheds\.cache\.example\.com\s+deleted/);
    expect(await client.get(CRD)).toBeUndefined();
    run.process.kill("SIGINT");
    expect((await run.process).exitCode, run.stderr()).toBe(0);

    // Without the operator, the finalizer holds the CR: uninstall times out naming it.
    expect((await runTsop(["install"], { cwd: dir, env, timeoutMs: 120_000 })).exitCode).toBe(0);
    await client.create({
      apiVersion: MEMCACHED,
      kind: "Memcached",
      metadata: { name: "held", namespace: "default", finalizers: ["cache.example.com/finalizer"] },
      spec: { size: 1 },
    });
    const blocked = await runTsop(["uninstall", "--force", "--timeout", "5s"], { cwd: dir, env });
    expect(blocked.exitCode).toBe(3);
    expect(blocked.stderr).toContain(
      "Memcached default/held: waiting for finalizer(s) cache.example.com/finalizer",
    );
    expect(blocked.stderr).toContain("tsop run local");
    expect(await client.get(CRD)).toBeDefined();
    await client.mergePatch({ ...sampleRef, name: "held" }, { metadata: { finalizers: null } });
    const cleaned = await runTsop(["uninstall", "--force"], { cwd: dir, env, timeoutMs: 120_000 });
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(await client.get(CRD)).toBeUndefined();
  });

  it("deploy --dry-run -o yaml is `kustomize build config/default` plus deploy's label and image", async () => {
    const built = await execa(rigBinary("kustomize"), ["build", "config/default"], { cwd: dir });
    const expected = parseAllDocuments(built.stdout).map((d) => d.toJS() as KubeObject);
    const image = "registry.test:5000/memcached-operator:dev";
    for (const o of expected) {
      o.metadata.labels = { ...o.metadata.labels, "tsop.dev/deploy": "memcached-operator" };
      if (o.kind === "Deployment") o.spec.template.spec.containers[0].image = image;
    }
    const dry = await runTsop(["deploy", "--dry-run", "-o", "yaml", "--image", image], { cwd: dir, env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    const actual = parseAllDocuments(dry.stdout).map((d) => d.toJS() as KubeObject);
    const byKey = (list: KubeObject[]) =>
      Object.fromEntries(list.map((o) => [`${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`, o]));
    expect(byKey(actual)).toEqual(byKey(expected));
  });

  it("deploy then undeploy --delete-crds leave every object in the cluster as it was", async () => {
    // The reconciler's Deployment (owned by the deleted CR) is garbage-collected; wait until the
    // cluster is quiet before taking the "before" picture.
    await eventually("the operand Deployment to be collected", async () =>
      (await client.get(deploymentRef)) ? undefined : true,
    );
    const before = await snapshot(client);
    const deployed = await runTsop(["deploy", "--image", "registry.test:5000/memcached-operator:dev"], {
      cwd: dir,
      env,
      timeoutMs: 300_000,
    });
    expect(deployed.exitCode, deployed.stderr).toBe(0);
    const manager = await client.get({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "memcached-operator-system",
      name: "memcached-operator-controller-manager",
    });
    expect(manager?.status?.availableReplicas).toBe(1);
    expect(manager?.spec.template.spec.containers[0].image).toBe("registry.test:5000/memcached-operator:dev");

    const removed = await runTsop(["undeploy", "--delete-crds"], { cwd: dir, env, timeoutMs: 300_000 });
    expect(removed.exitCode, removed.stderr).toBe(0);
    const after = await eventually(
      "the cluster to settle back",
      async () => {
        const now = await snapshot(client);
        return JSON.stringify([...now]) === JSON.stringify([...before]) ? now : undefined;
      },
      60_000,
    ).catch(async () => snapshot(client));
    expect(Object.fromEntries(after)).toEqual(Object.fromEntries(before));
  });
});
