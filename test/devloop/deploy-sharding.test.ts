// A scaffolded operator shards without a code change (issue 43): `--sharding` in config/manager's
// args is the project's opt-in. `tsop deploy --replicas N` renders N replicas (refused without
// leader election; with --sharding each reconciles a share), `tsop generate` grants what sharding
// needs, and that RBAC is checked against what the runtime actually requests: two replicas of the
// project's own compiled main.js run sharded on the in-memory API server as its ServiceAccount
// (runAsOperator: config/rbac and nothing more, the leader-election Role trimmed to what leader
// election uses), and no request is refused.
import { type ChildProcess, spawn } from "node:child_process";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { KubeClient } from "../../src/kube/client.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { runAsOperator, startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { runTsop } from "../support/cli.js";
import { clientFor, eventually } from "./support.js";
import { scaffoldOperator } from "./project.js";

const MEMCACHED = "cache.example.com/v1alpha1";
const RING = "memcached-operator.example.com";
const SHARD = `shard.tsop.io/${RING}`;

let dir: string;
let removeProject: (() => Promise<void>) | undefined;
let managerFile: string;
let scaffolded: string;

beforeAll(async () => {
  ({ dir, remove: removeProject } = await scaffoldOperator());
  managerFile = join(dir, "config/manager/manager.yaml");
  scaffolded = await readFile(managerFile, "utf8");
}, 300_000);

afterAll(async () => {
  await removeProject?.();
});

async function withArgs(replace: (args: string) => string): Promise<void> {
  const edited = replace(scaffolded);
  expect(edited).not.toBe(scaffolded);
  await writeFile(managerFile, edited);
}
const SHARDING = (text: string) =>
  text.replace("        - --leader-elect\n", "        - --leader-elect\n        - --sharding\n");

/** deploy --dry-run shows config/ as it is on disk: generate first, as a user's deploy would. */
async function dryRun(args: string[]) {
  const generated = await runTsop(["generate"], { cwd: dir });
  expect(generated.exitCode, generated.stderr).toBe(0);
  const result = await runTsop(["deploy", "--dry-run", "--skip-generate", "-o", "yaml", ...args], {
    cwd: dir,
    env: { KUBECONFIG: "/nonexistent" },
  });
  const objects =
    result.exitCode === 0 ? parseAllDocuments(result.stdout).map((d) => d.toJS() as KubeObject) : [];
  return { ...result, objects };
}

const manager = (objects: KubeObject[]) =>
  objects.find((o) => o.kind === "Deployment" && o.metadata.name === "memcached-operator-controller-manager");

describe("tsop deploy --replicas", () => {
  it(
    "without --sharding: N replicas, one leader and the others standing by, and says so",
    { timeout: 120_000 },
    async () => {
      await writeFile(managerFile, scaffolded);
      const result = await dryRun(["--replicas", "3"]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(manager(result.objects)?.spec.replicas).toBe(3);
      expect(result.stderr).toContain("3 manager replicas: one leader reconciles, the others stand by");
      // No Role of the manager's own (the shard Leases), no patch on the reconciled kind.
      expect(result.objects.filter((o) => o.kind === "Role").map((o) => o.metadata.name)).toEqual([
        "memcached-operator-leader-election-role",
      ]);
    },
  );

  it(
    "with --sharding in config/manager: N replicas each with its share, and the RBAC sharding needs",
    { timeout: 120_000 },
    async () => {
      await withArgs(SHARDING);
      const result = await dryRun(["--replicas", "3", "-n", "team-a"]);
      expect(result.exitCode, result.stderr).toBe(0);
      const deployment = manager(result.objects);
      expect(deployment?.spec.replicas).toBe(3);
      expect(deployment?.spec.template.spec.containers[0].args).toEqual(
        expect.arrayContaining(["--leader-elect", "--sharding"]),
      );
      expect(result.stderr).toContain(
        "3 manager replicas, each reconciling its share of the objects (--sharding)",
      );
      // The shard Leases in the manager's namespace only, and patch on the reconciled and owned kinds.
      const role = result.objects.find(
        (o) => o.kind === "Role" && o.metadata.name === "memcached-operator-manager-role",
      );
      expect(role?.metadata.namespace).toBe("team-a");
      expect(role?.rules).toEqual([
        {
          apiGroups: ["coordination.k8s.io"],
          resources: ["leases"],
          verbs: ["create", "delete", "get", "list", "update", "watch"],
        },
      ]);
      const cluster = result.objects.find(
        (o) => o.kind === "ClusterRole" && o.metadata.name === "memcached-operator-manager-role",
      );
      const verbsOn = (resource: string) =>
        (cluster?.rules as Array<{ resources: string[]; verbs: string[] }>)
          .filter((r) => r.resources.includes(resource))
          .flatMap((r) => r.verbs);
      expect(verbsOn("memcacheds")).toContain("patch");
      expect(verbsOn("deployments")).toContain("patch");
      expect(verbsOn("leases")).toEqual([]);
    },
  );

  it(
    "refuses several replicas without leader election, naming the Deployment",
    { timeout: 120_000 },
    async () => {
      await writeFile(managerFile, scaffolded.replace("        - --leader-elect\n", ""));
      const result = await dryRun(["--replicas", "2"]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(
        "--replicas 2: config/default: Deployment memcached-operator-controller-manager, container manager runs without --leader-elect, so every replica would reconcile every object at once",
      );
      expect(result.stderr).toContain("add --leader-elect to its args");
      const zero = await dryRun(["--replicas", "0"]);
      expect(zero.exitCode).not.toBe(0);
      expect(zero.stderr).toContain('"0" is not a number of replicas');
    },
  );
});

describe("tsop bundle", () => {
  it(
    "the CSV carries config/manager's replicas and --sharding, and the RBAC sharding needs",
    { timeout: 120_000 },
    async () => {
      await withArgs((text) => SHARDING(text).replace("  replicas: 1\n", "  replicas: 3\n"));
      await appendFile(
        join(dir, "tsop.bundle.yaml"),
        "description: Runs memcached.\nproviderName: Example\nmaintainers: Jane <jane@example.com>\n",
      );
      const run = await runTsop(["bundle"], { cwd: dir });
      expect(run.exitCode, run.stderr).toBe(0);
      const csvText = await readFile(
        join(dir, "bundle/manifests/memcached-operator.clusterserviceversion.yaml"),
        "utf8",
      );
      const csv = parseAllDocuments(csvText)[0]!.toJS() as {
        spec: {
          install: {
            spec: {
              deployments: Array<{ spec: KubeObject["spec"] }>;
              permissions: Array<{ serviceAccountName: string; rules: Array<Record<string, string[]>> }>;
              clusterPermissions: Array<{
                serviceAccountName: string;
                rules: Array<Record<string, string[]>>;
              }>;
            };
          };
        };
      };
      const install = csv.spec.install.spec;
      expect(install.deployments[0]!.spec.replicas).toBe(3);
      expect(install.deployments[0]!.spec.template.spec.containers[0].args).toEqual(
        expect.arrayContaining(["--leader-elect", "--sharding"]),
      );
      const sa = "memcached-operator-controller-manager";
      expect(install.permissions.find((p) => p.serviceAccountName === sa)?.rules).toContainEqual({
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        verbs: ["create", "delete", "get", "list", "update", "watch"],
      });
      const clusterRules = install.clusterPermissions.find((p) => p.serviceAccountName === sa)?.rules ?? [];
      for (const resource of ["memcacheds", "deployments"])
        expect(clusterRules.filter((r) => r.resources!.includes(resource)).flatMap((r) => r.verbs)).toContain(
          "patch",
        );
      expect(clusterRules.filter((r) => r.resources!.includes("leases"))).toEqual([]);
    },
  );
});

describe("the generated RBAC and what the sharded runtime requests", () => {
  let cluster: TestCluster;
  let client: KubeClient;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    client?.close();
    await cluster?.stop();
  });

  it(
    "two replicas of the project's main.js, as its ServiceAccount, shard the Memcacheds with no request refused",
    { timeout: 120_000 },
    async () => {
      await withArgs(SHARDING);
      // Leader election itself needs only get, create and update on its Lease: with the scaffold's
      // leader-election Role trimmed to those, the shard Leases' list, watch and delete must come
      // from the Role `tsop generate` wrote (the scaffold's @Rbac already grants patch on the kinds).
      const electionRole = join(dir, "config/rbac/leader_election_role.yaml");
      const trimmed = (await readFile(electionRole, "utf8")).replace(
        "  - get\n  - list\n  - watch\n  - create\n  - update\n  - patch\n  - delete\n",
        "  - get\n  - create\n  - update\n",
      );
      expect(trimmed).not.toContain("  - delete\n");
      await writeFile(electionRole, trimmed);
      const built = await execa("npm", ["run", "build"], { cwd: dir, reject: false, all: true });
      expect(built.exitCode, built.all).toBe(0);
      cluster = await startTestCluster();
      client = await clientFor(cluster.kubeconfigPath);
      const installed = await runTsop(["install", "--skip-generate"], {
        cwd: dir,
        env: { KUBECONFIG: cluster.kubeconfigPath },
      });
      expect(installed.exitCode, installed.stderr).toBe(0);
      const namespace = "memcached-operator-system";
      const identity = await runAsOperator(cluster, { rbacDir: join(dir, "config/rbac"), namespace });
      const logs: string[] = [];
      for (const replica of [0, 1]) {
        const child = spawn(
          process.execPath,
          [
            "dist/main.js",
            "--leader-elect",
            "--sharding",
            `--leader-election-namespace=${namespace}`,
            `--kubeconfig=${identity.kubeconfigPath}`,
            "--metrics-bind-address=0",
            "--health-probe-bind-address=0",
          ],
          { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, KUBECONFIG: "" } },
        );
        logs[replica] = "";
        child.stdout!.on("data", (d) => (logs[replica] += d));
        child.stderr!.on("data", (d) => (logs[replica] += d));
        children.push(child);
      }
      // Both replicas hold their shard Lease before the Memcacheds exist (else the first would
      // take them all, rightly).
      const shardLeases = await eventually(
        "a shard Lease of each replica",
        async () => {
          const leases = await client.list("coordination.k8s.io/v1", "Lease", { namespace });
          const ring = leases.items.filter((l) => l.metadata.labels?.["sharding.tsop.io/ring"] === RING);
          return ring.length === 2 ? ring : undefined;
        },
        60_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${logs.join("\n---\n").slice(-4000)}`);
      });
      const names = Array.from({ length: 8 }, (_, i) => `m-${i}`);
      for (const name of names)
        await client.create({
          apiVersion: MEMCACHED,
          kind: "Memcached",
          metadata: { name, namespace: "default" },
          spec: { size: 1 },
        });

      // Every Memcached assigned to a live shard and reconciled by it (its Deployment, which carries
      // the owner's shard label).
      const shards = await eventually(
        "every Memcached assigned and reconciled",
        async () => {
          const assigned: string[] = [];
          for (const name of names) {
            const m = await client.get({
              apiVersion: MEMCACHED,
              kind: "Memcached",
              namespace: "default",
              name,
            });
            const child = await client.get({
              apiVersion: "apps/v1",
              kind: "Deployment",
              namespace: "default",
              name,
            });
            const shard = m?.metadata.labels?.[SHARD];
            if (!shard || child?.metadata.labels?.[SHARD] !== shard) return undefined;
            assigned.push(shard);
          }
          return assigned;
        },
        60_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${logs.join("\n---\n").slice(-4000)}`);
      });
      expect(new Set(shards).size).toBeGreaterThanOrEqual(1);
      for (const s of shards) expect(shardLeases.map((l) => l.metadata.name)).toContain(`${RING}-shard-${s}`);

      const byOperator = cluster.requests.filter((r) => r.user === identity.user);
      // The runtime did use what the generated RBAC grants for sharding…
      expect(
        byOperator.some((r) => r.method === "POST" && r.path.includes(`/namespaces/${namespace}/leases`)),
      ).toBe(true);
      expect(byOperator.some((r) => r.method === "PATCH" && r.path.includes("/memcacheds/"))).toBe(true);
      // …and nothing it asked for was refused.
      expect(byOperator.filter((r) => r.status === 403).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    },
  );
});
