// perturb() on the real control plane, with the scaffolded reconciler: a project made by the built
// CLI (`tsop init` + `tsop create api` for Memcached) whose scaffolded test/memcached.perturb.test.ts
// is switched to `cluster: { controlPlane: "real" }` — the one line an author changes — and run
// with the project's own vitest. Each run starts etcd and kube-apiserver behind the fault proxy
// (binaries from KUBEBUILDER_ASSETS, as the rig setup exports them), and the scenarios that make
// sense there run: stale reads (watch events held back by the proxy), dropped watches and 410s, a
// crash and restart between any two writes, conflicting writes, slow requests (apiServerRestart is
// the in-memory server's emulation; the real one is cluster.restartApiServer()). No workloads:
// Deployments get no status, so every run ends at the same "0/3 replicas available". Then a planted
// bug of the kind Sieve reports — a non-idempotent create (a generateName Secret made before the
// status records it) — is caught on the real server under restartBetweenWrites.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CONTROLLER, edit, scaffoldMemcached } from "../../operator/support.js";

const PERTURB_TEST = "test/memcached.perturb.test.ts";
let work: string;
let project: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "tsop-perturb-real-"));
  project = await scaffoldMemcached(work);
  await edit(project, PERTURB_TEST, "cluster: { workloads: true },", 'cluster: { controlPlane: "real" },');
  // A real control plane per run, one run at a time: minutes, not seconds.
  await edit(project, PERTURB_TEST, "{ timeout: 120_000 }", "{ timeout: 900_000 }");
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function runPerturbTest() {
  return execa("npx", ["vitest", "run", PERTURB_TEST], {
    cwd: project,
    reject: false,
    all: true,
    env: { CI: "1" },
    timeout: 1_000_000,
  });
}

it("the scaffolded reconciler converges under every scenario on the real control plane", async () => {
  const run = await runPerturbTest();
  expect(run.exitCode, run.all).toBe(0);
  expect(run.all).toContain("1 passed");
}, 1_100_000);

it("a planted non-idempotent create is caught on the real server under restartBetweenWrites", async () => {
  // Before the Deployment, a Secret with a generated name, unless the status (read fresh from the
  // server) shows this Memcached was reconciled before: a crash after the create and before the
  // status patch makes the next manager create a second one.
  await edit(
    project,
    CONTROLLER,
    "    const desired = desiredDeployment(memcached);",
    `    const fresh = await ctx.client.apiReader.get(Memcached, request);
    if (!fresh?.status?.conditions?.length) {
      await ctx.client.create({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { generateName: \`\${memcached.metadata.name}-\`, namespace: memcached.metadata.namespace },
      } as never);
    }
    const desired = desiredDeployment(memcached);`,
  );
  await edit(
    project,
    PERTURB_TEST,
    'kinds: [Memcached, { apiVersion: "apps/v1", kind: "Deployment" }],',
    'kinds: [Memcached, { apiVersion: "apps/v1", kind: "Deployment" }, { apiVersion: "v1", kind: "Secret" }],\n    scenarios: ["restartBetweenWrites"],',
  );
  await edit(project, PERTURB_TEST, "maxRestarts: 4,", "maxRestarts: 2,");
  const run = await runPerturbTest();
  expect(run.exitCode, run.all).toBe(1);
  // Write 1 adds the finalizer, write 2 is the create: a crash right after it leaves no status.
  expect(run.all).toContain(
    "[restartBetweenWrites@2] converges Secret default/memcached-sample-*: count: 1 in the unperturbed run, 2 in this run",
  );
}, 1_100_000);
