// The dev loop through the built CLI against tsop/testing (workloads mode): install/uninstall with
// custom resources and finalizers, deploy --dry-run, deploy + undeploy leaving the cluster as it
// was, and run local on a scaffolded operator (its reconciler creates the Deployment, the env's
// RELATED_IMAGE_ value is expanded, Ctrl-C stops it, --watch restarts it after a change).
import { readFile, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { KubeClient } from "../../src/kube/client.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { runTsop } from "../support/cli.js";
import { clientFor, eventually, isAlive, snapshot, startTsop } from "./support.js";
import { scaffoldOperator } from "./project.js";

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  name: "memcacheds.cache.example.com",
};
const MEMCACHED = "cache.example.com/v1alpha1";

let cluster: TestCluster;
let client: KubeClient;
let dir: string;
let removeProject: (() => Promise<void>) | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  cluster = await startTestCluster({ workloads: true });
  client = await clientFor(cluster.kubeconfigPath);
  env = { KUBECONFIG: cluster.kubeconfigPath };
  ({ dir, remove: removeProject } = await scaffoldOperator());
  // Pin the operand image through a variable the manager env defines first ($(VAR) expansion).
  const managerFile = join(dir, "config/manager/manager.yaml");
  const manager = await readFile(managerFile, "utf8");
  const pinned = manager.replace(
    /- name: RELATED_IMAGE_MEMCACHED\n(\s+)value: .*\n/,
    "- name: IMAGE_REGISTRY\n$1value: registry.test:5000/mirror\n        - name: RELATED_IMAGE_MEMCACHED\n$1value: $(IMAGE_REGISTRY)/memcached:1.6.99\n",
  );
  expect(pinned).not.toBe(manager);
  await writeFile(managerFile, pinned);
  // install and deploy read config/crd as `tsop generate` writes it (run local builds by itself).
  const gen = await runTsop(["generate"], { cwd: dir });
  expect(gen.exitCode, gen.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  client?.close();
  await cluster?.stop();
  await removeProject?.();
});

function memcached(name: string, finalizers?: string[]): KubeObject {
  return {
    apiVersion: MEMCACHED,
    kind: "Memcached",
    metadata: { name, namespace: "default", ...(finalizers ? { finalizers } : {}) },
    spec: { size: 1 },
  };
}

describe("tsop install / uninstall", () => {
  it(
    "applies the CRDs, waits until established, and re-applies idempotently",
    { timeout: 240_000 },
    async () => {
      const first = await runTsop(["install"], { cwd: dir, env });
      expect(first.exitCode, first.stderr).toBe(0);
      expect(first.stderr).toContain(`using cluster ${cluster.url} (context "tsop-test")`);
      expect(first.stdout).toMatch(/CustomResourceDefinition\s+memcacheds\.cache\.example\.com\s+created/);
      const crd = await client.get(CRD);
      expect(crd?.status?.conditions?.find((c: { type: string }) => c.type === "Established")?.status).toBe(
        "True",
      );
      expect(crd?.metadata.managedFields?.toString()).toBeDefined();
      const again = await runTsop(["install", "-o", "json"], { cwd: dir, env });
      expect(JSON.parse(again.stdout)).toEqual({
        items: [{ kind: "CustomResourceDefinition", name: CRD.name, action: "configured" }],
      });
    },
  );

  it(
    "refuses to uninstall while custom resources exist, and with --force reports the finalizer that blocks",
    { timeout: 240_000 },
    async () => {
      await client.create(memcached("held", ["cache.example.com/finalizer"]));
      const refused = await runTsop(["uninstall"], { cwd: dir, env });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain("1 custom resource(s) still exist: Memcached default/held");
      expect(refused.stderr).toContain("--force");
      expect(await client.get(CRD)).toBeDefined();

      const blocked = await runTsop(["uninstall", "--force", "--timeout", "2s"], { cwd: dir, env });
      expect(blocked.exitCode).toBe(3);
      expect(blocked.stderr).toContain(
        "Memcached default/held: waiting for finalizer(s) cache.example.com/finalizer",
      );
      expect(blocked.stderr).toContain("tsop run local");
      expect(await client.get(CRD)).toBeDefined();

      // Whoever owns the finalizer removes it while uninstall waits: then everything goes.
      const uninstall = startTsop(["uninstall", "--force", "-o", "json"], dir, env);
      await uninstall.waitFor(
        /Memcached default\/held: terminating \(finalizers: cache\.example\.com\/finalizer\)/,
      );
      await client.mergePatch(
        { apiVersion: MEMCACHED, kind: "Memcached", namespace: "default", name: "held" },
        { metadata: { finalizers: null } },
      );
      const done = await uninstall.process;
      expect(done.exitCode, uninstall.stderr()).toBe(0);
      expect(JSON.parse(uninstall.stdout()).items).toEqual([
        { kind: "Memcached", namespace: "default", name: "held", action: "deleted" },
        { kind: "CustomResourceDefinition", name: CRD.name, action: "deleted" },
      ]);
      expect(await client.get(CRD)).toBeUndefined();
    },
  );
});

describe("tsop deploy / undeploy", () => {
  it(
    "--dry-run -o yaml prints config/default with the image and label, and needs no cluster",
    { timeout: 240_000 },
    async () => {
      const result = await runTsop(
        ["deploy", "--dry-run", "-o", "yaml", "--image", "registry.test/op:dev", "-n", "team-a"],
        {
          cwd: dir,
          env: { KUBECONFIG: "/nonexistent" },
        },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      const objects = parseAllDocuments(result.stdout).map((d) => d.toJS() as KubeObject);
      const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`);
      expect(kinds).toContain("Namespace/team-a");
      expect(kinds).toContain(`CustomResourceDefinition/${CRD.name}`);
      expect(kinds).toContain("Deployment/memcached-operator-controller-manager");
      for (const o of objects) expect(o.metadata.labels?.["tsop.dev/deploy"]).toBe("memcached-operator");
      const deployment = objects.find((o) => o.kind === "Deployment");
      expect(deployment?.metadata.namespace).toBe("team-a");
      expect(deployment?.spec.template.spec.containers[0].image).toBe("registry.test/op:dev");
    },
  );

  it("deploy then undeploy --delete-crds leaves every object as it was", { timeout: 240_000 }, async () => {
    const before = await snapshot(client);
    const deployed = await runTsop(["deploy", "--timeout", "60s"], { cwd: dir, env, timeoutMs: 120_000 });
    expect(deployed.exitCode, deployed.stderr).toBe(0);
    expect(deployed.stderr).toContain("memcached-operator-system");
    expect(deployed.stdout).toMatch(
      /Deployment\s+memcached-operator-system\s+memcached-operator-controller-manager\s+created/,
    );
    const manager = await client.get({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "memcached-operator-system",
      name: "memcached-operator-controller-manager",
    });
    expect(manager?.status?.availableReplicas).toBe(1);

    const removed = await runTsop(["undeploy", "--delete-crds"], { cwd: dir, env, timeoutMs: 120_000 });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/Namespace\s+memcached-operator-system\s+deleted/);
    expect(await snapshot(client)).toEqual(before);
    const again = await runTsop(["undeploy"], { cwd: dir, env });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain("nothing deployed by tsop for memcached-operator");
  });

  it(
    "never takes over an existing namespace (undeploy must not delete it)",
    { timeout: 240_000 },
    async () => {
      const deployed = await runTsop(["deploy", "-n", "default", "--timeout", "60s"], {
        cwd: dir,
        env,
        timeoutMs: 120_000,
      });
      expect(deployed.exitCode, deployed.stderr).toBe(0);
      expect(deployed.stdout).toMatch(/Namespace\s+default\s+exists \(left as it is\)/);
      const removed = await runTsop(["undeploy", "--delete-crds"], { cwd: dir, env, timeoutMs: 120_000 });
      expect(removed.exitCode, removed.stderr).toBe(0);
      expect(await client.get({ apiVersion: "v1", kind: "Namespace", name: "default" })).toBeDefined();
      expect(removed.stdout).toMatch(
        /Deployment\s+default\s+memcached-operator-controller-manager\s+deleted/,
      );
    },
  );
});

describe("tsop run local", () => {
  // Metrics are off by default (run local adds --metrics-bind-address 0); no health probe port
  // either, so that concurrent tests never compete for :8081.
  const managerArgs = ["--", "--health-probe-bind-address", "0"];

  it(
    "builds, installs the CRDs, runs the reconciler with the expanded env, and stops on Ctrl-C",
    { timeout: 240_000 },
    async () => {
      const run = startTsop(["run", "local", ...managerArgs], dir, env);
      await run.waitFor(/manager running \(pid (\d+)\)/);
      const pid = Number(/manager running \(pid (\d+)\)/.exec(run.stderr())?.[1]);
      expect(run.stderr()).toContain("building the operator");
      expect(run.stderr()).toContain(`using cluster ${cluster.url} (context "tsop-test"), namespace default`);
      expect(run.stderr()).toContain("leader election off");
      expect(run.stderr()).toContain(
        "starting node dist/main.js --metrics-bind-address 0 --health-probe-bind-address 0",
      );
      expect(run.stderr()).toContain("metrics off, as with `make run`");
      expect(run.stderr()).toMatch(
        /manager env from config\/manager: .*IMAGE_REGISTRY, RELATED_IMAGE_MEMCACHED/,
      );

      await client.create(memcached("sample"));
      const deployment = await eventually("the reconciler's Deployment to be available", async () => {
        const d = await client.get({
          apiVersion: "apps/v1",
          kind: "Deployment",
          namespace: "default",
          name: "sample",
        });
        return d?.status?.availableReplicas === 1 ? d : undefined;
      });
      expect(deployment.spec.template.spec.containers[0].image).toBe(
        "registry.test:5000/mirror/memcached:1.6.99",
      );
      await eventually("the CR's status to report it", async () => {
        const cr = await client.get({
          apiVersion: MEMCACHED,
          kind: "Memcached",
          namespace: "default",
          name: "sample",
        });
        const available = (cr?.status?.conditions ?? []).find(
          (c: { type: string }) => c.type === "Available",
        );
        return available?.status === "True" ? true : undefined;
      });

      run.process.kill("SIGINT");
      const result = await run.process;
      expect(result.exitCode, run.stderr()).toBe(0);
      expect(run.stderr()).toContain("stopping the manager");
      expect(run.stderr()).toMatch(/manager stopped \(exit code 0\)/);
      expect(isAlive(pid)).toBe(false);
    },
  );

  it(
    "--watch rebuilds and restarts the manager after a source change; the change shows",
    { timeout: 240_000 },
    async () => {
      const run = startTsop(["run", "local", "--watch", ...managerArgs], dir, env);
      await run.waitFor(/manager running \(pid \d+\)/);
      // Edits made before the watcher is in place are not changes; wait until it says it watches.
      await run.waitFor(/watching src\/, config\/manager\/, package\.json and tsconfig\*\.json for changes/);
      expect(run.stderr()).not.toContain("building the operator"); // built by the previous test, not stale

      const controller = join(dir, "src/controllers/memcached.controller.ts");
      const source = await readFile(controller, "utf8");
      const changed = source.replace(
        '"app.kubernetes.io/instance": name,',
        '"app.kubernetes.io/instance": name,\n    "example.com/revision": "2",',
      );
      expect(changed).not.toBe(source);
      await writeFile(controller, changed);
      await run.waitFor(/memcached\.controller\.ts changed: rebuilding/);
      await run.waitFor(/manager running \(pid \d+\)/, 2);
      await eventually("the restarted reconciler's label on the Deployment", async () => {
        const d = await client.get({
          apiVersion: "apps/v1",
          kind: "Deployment",
          namespace: "default",
          name: "sample",
        });
        return d?.metadata.labels?.["example.com/revision"] === "2" ? true : undefined;
      });

      // A broken change keeps the running manager and says why.
      await writeFile(controller, `${changed}\nconst broken: number = "not a number";\n`);
      await run.waitFor(/npm run build failed/);
      expect(run.process.exitCode).toBeNull();

      run.process.kill("SIGINT");
      const result = await run.process;
      expect(result.exitCode, run.stderr()).toBe(0);
      expect(run.stderr()).toMatch(/manager stopped .* after 1 restart\(s\)/);
    },
  );

  it("a port the manager cannot bind: one error line and a hint from the scaffolded main.ts, no stack trace", async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const port = (held.address() as AddressInfo).port;
    try {
      const args = ["run", "local", "--", "--health-probe-bind-address", "0", "--metrics-bind-address"];
      const run = await runTsop([...args, `127.0.0.1:${port}`], { cwd: dir, env });
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).not.toContain("metrics off");
      expect(run.stderr).toContain(`error: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`);
      expect(run.stderr).toContain(
        'hint: another process holds that port: give its --*-bind-address flag a free one ("0" turns it off)',
      );
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).toContain("the manager exited with code 1");
    } finally {
      held.close();
    }
  });
});
