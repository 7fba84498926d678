// `tsop olm status | install | uninstall` on the real test bed, in one bed without OLM at start: the
// real kube-apiserver, controller-manager, scheduler and kwok, the pod runner running OLM v0.28.0's
// operators once tsop creates their Deployments, and the fault proxy in front of the apiserver (only
// tsop and kubectl go through it; OLM's operators talk to the apiserver directly). The oracle for
// "the cluster is as it was" is a kubectl snapshot of every object of every listable kind.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, snapshot } from "../run/bed.js";

let bed: OlmBed;
let kubeconfig: string[];
/** The cluster before OLM: what uninstall and a rolled-back install must return to. */
let pristine: Set<string>;

beforeAll(async () => {
  bed = await startOlmBed({ olm: false });
  kubeconfig = ["--kubeconfig", bed.cluster.kubeconfigPath];
  pristine = await snapshot(bed.cluster.kubeconfigPath);
}, 600_000);

afterAll(async () => {
  await bed?.stop();
}, 120_000);

interface StatusJson {
  verdict: string;
  version?: string;
  rows: Array<{ name: string; namespace: string; kind: string; status: string; healthy: boolean }>;
}

function kubectl(args: string[]) {
  return execa("kubectl", args, { env: { KUBECONFIG: bed.cluster.kubeconfigPath }, reject: false });
}

/** Objects that differ from the pristine cluster (both ways), polled until none or the deadline. */
async function differenceFromPristine(ms: number): Promise<{ added: string[]; removed: string[] }> {
  let diff = { added: [] as string[], removed: [] as string[] };
  for (const deadline = Date.now() + ms; ;) {
    const now = await snapshot(bed.cluster.kubeconfigPath);
    diff = { added: added(pristine, now), removed: added(now, pristine) };
    if ((diff.added.length === 0 && diff.removed.length === 0) || Date.now() > deadline) return diff;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** `tsop olm status -o json` until `done` holds (OLM's operators converge on their own time). */
async function statusUntil(done: (s: StatusJson) => boolean, ms: number): Promise<StatusJson> {
  let last: StatusJson | undefined;
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    const r = await runTsop(["olm", "status", "-o", "json", ...kubeconfig]);
    last = JSON.parse(r.stdout) as StatusJson;
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`olm status never matched; last:\n${JSON.stringify(last, null, 2)}`);
}

describe("real OLM: tsop olm status, install, uninstall", () => {
  it("absent: no OLM is a clear message and exit 1, in the table and in JSON", async () => {
    const table = await runTsop(["olm", "status", ...kubeconfig]);
    expect(table.exitCode, table.stderr).toBe(1);
    expect(table.stdout).toBe("OLM is not installed.\n");
    const json = await runTsop(["olm", "status", "-o", "json", ...kubeconfig]);
    expect(json.exitCode, json.stderr).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ verdict: "absent", rows: [] });
    const uninstall = await runTsop(["olm", "uninstall", ...kubeconfig]);
    expect(uninstall.exitCode).toBe(1);
    expect(uninstall.stderr).toContain("OLM is not installed in this cluster");
  }, 60_000);

  it("a create that keeps failing mid-install: exit 1 naming the object, the cluster left as it was", async () => {
    // Every apply of catalog-operator's Deployment answers 500: after the CRDs, namespaces and RBAC.
    const path = "/apis/apps/v1/namespaces/olm/deployments/catalog-operator";
    bed.cluster.faults.add({ method: "PATCH", path, status: 500, count: Infinity });
    let install;
    try {
      install = await runTsop(["olm", "install", "--timeout", "3m", ...kubeconfig], { timeoutMs: 200_000 });
    } finally {
      bed.cluster.faults.clear();
    }
    expect(install.exitCode, install.stderr).toBe(1);
    expect(install.stderr).toContain("installing OLM v0.28.0 failed");
    // The request that failed, as the API names it, and the answer.
    expect(install.stderr).toMatch(/patch deployments\.apps "catalog-operator": 500 .*injected fault/);
    expect(install.stderr).toContain("the cluster was left as it was before the install");
    expect(await differenceFromPristine(30_000)).toEqual({ added: [], removed: [] });
  }, 300_000);

  it("--manifests <files> with OLM's release manifests: installs, reports healthy (table and JSON), refuses a second install", async () => {
    // The release assets tsop ships, under other names, in a directory of their own, given as
    // files (no --version: the version comes from the packageserver CSV's olm.version label).
    const dir = await mkdtemp(join(tmpdir(), "tsop-olm-manifests-"));
    const files = [join(dir, "olm-v0.28.0-crds.yaml"), join(dir, "olm-v0.28.0.yaml")];
    await cp(join(REPO_ROOT, "olm-releases/v0.28.0/crds.yaml"), files[0]!);
    await cp(join(REPO_ROOT, "olm-releases/v0.28.0/olm.yaml"), files[1]!);
    const install = await runTsop(
      ["olm", "install", "--manifests", files.join(","), "-o", "json", "--timeout", "5m", ...kubeconfig],
      { timeoutMs: 330_000 },
    );
    await rm(dir, { recursive: true, force: true });
    expect(install.exitCode, install.stderr).toBe(0);
    expect(install.stderr).toContain(`Using OLM v0.28.0 manifests from ${files.join(",")}`);
    const result = JSON.parse(install.stdout) as StatusJson & {
      source: { origin: string; location: string };
    };
    expect(result.rows.filter((r) => !r.healthy)).toEqual([]);
    expect(result).toMatchObject({ verdict: "healthy", version: "v0.28.0" });
    expect(result.source).toEqual({ origin: "files", location: files.join(",") });

    const table = await runTsop(["olm", "status", ...kubeconfig]);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+NAMESPACE\s+KIND\s+STATUS\n/);
    expect(table.stdout).toMatch(/\nolm-operator\s+olm\s+Deployment\s+Available \(1\/1\)\n/);
    expect(table.stdout).toMatch(/\npackageserver\s+olm\s+ClusterServiceVersion\s+Succeeded\n/);
    expect(table.stdout).toMatch(/\nOLM v0\.28\.0: healthy\n$/);

    const json = await runTsop(["olm", "status", "-o", "json", ...kubeconfig]);
    expect(json.exitCode, json.stderr).toBe(0);
    const status = JSON.parse(json.stdout) as StatusJson;
    // The JSON shape is stable: exactly these keys, rows with exactly these fields.
    expect(Object.keys(status).sort()).toEqual(["rows", "verdict", "version"]);
    expect(status).toMatchObject({ verdict: "healthy", version: "v0.28.0" });
    for (const row of status.rows)
      expect(Object.keys(row).sort()).toEqual(["healthy", "kind", "name", "namespace", "status"]);
    // One row per object of the release plus the packageserver Deployment OLM creates, checked
    // against the cluster through kubectl.
    const deployments = (await kubectl(["get", "deployments", "-n", "olm", "-o", "name"])).stdout;
    expect(deployments.split("\n").sort()).toEqual([
      "deployment.apps/catalog-operator",
      "deployment.apps/olm-operator",
      "deployment.apps/packageserver",
    ]);
    expect(status.rows.filter((r) => r.kind === "Deployment").map((r) => r.name)).toEqual([
      "catalog-operator",
      "olm-operator",
      "packageserver",
    ]);
    expect(status.rows.filter((r) => r.kind === "CustomResourceDefinition")).toHaveLength(
      (await kubectl(["get", "crd", "-o", "name"])).stdout
        .split("\n")
        .filter((l) => l.includes("operators.coreos.com")).length,
    );

    const again = await runTsop(["olm", "install", ...kubeconfig]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("OLM is already installed");
    expect(again.stderr).toMatch(/ {2}- Deployment olm\/olm-operator/);
  }, 400_000);

  it("degraded: a missing OLM Deployment is reported, exit 1; `install --force` repairs it", async () => {
    const removed = await kubectl(["delete", "deployment", "-n", "olm", "catalog-operator", "--wait"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    const degraded = await statusUntil((s) => s.verdict === "degraded", 60_000);
    expect(degraded.rows.filter((r) => !r.healthy)).toEqual([
      { name: "catalog-operator", namespace: "olm", kind: "Deployment", status: "Missing", healthy: false },
    ]);
    const table = await runTsop(["olm", "status", ...kubeconfig]);
    expect(table.exitCode).toBe(1);
    expect(table.stdout).toMatch(/\ncatalog-operator\s+olm\s+Deployment\s+Missing\n/);
    expect(table.stdout).toMatch(/\nOLM v0\.28\.0: degraded \(1 of \d+ objects not healthy\)\n$/);

    const repair = await runTsop(["olm", "install", "--force", "--timeout", "3m", ...kubeconfig], {
      timeoutMs: 200_000,
    });
    expect(repair.exitCode, repair.stderr).toBe(0);
    expect(repair.stderr).toContain("--force: applying OLM v0.28.0 over");
    expect(repair.stderr).toMatch(/Deployment olm\/catalog-operator created/);
    await statusUntil((s) => s.verdict === "healthy", 60_000);
  }, 300_000);

  it("uninstall: removes everything OLM added (CRDs and namespaces too) without hanging", async () => {
    const started = Date.now();
    const uninstall = await runTsop(["olm", "uninstall", "--timeout", "4m", ...kubeconfig], {
      timeoutMs: 260_000,
    });
    const took = Date.now() - started;
    expect(uninstall.exitCode, uninstall.stderr).toBe(0);
    expect(uninstall.stderr).toContain("OLM v0.28.0 uninstalled");
    console.log(`olm uninstall took ${(took / 1000).toFixed(1)} s`);
    expect(await differenceFromPristine(30_000)).toEqual({ added: [], removed: [] });
    const crds = (await kubectl(["get", "crd", "-o", "name"])).stdout;
    expect(crds).not.toContain("operators.coreos.com");
    const namespaces = (await kubectl(["get", "namespaces", "-o", "name"])).stdout;
    expect(namespaces).not.toMatch(/namespace\/(olm|operators)$/m);
    const status = await runTsop(["olm", "status", ...kubeconfig]);
    expect(status.stdout).toBe("OLM is not installed.\n");
  }, 300_000);

  it("the default install (the shipped v0.28.0 release) after an uninstall: healthy", async () => {
    const install = await runTsop(["olm", "install", "--timeout", "5m", ...kubeconfig], {
      timeoutMs: 330_000,
    });
    expect(install.exitCode, install.stderr).toBe(0);
    expect(install.stderr).toContain("Using OLM v0.28.0 manifests shipped with tsop");
    expect(install.stderr).toContain("OLM v0.28.0 installed");
    expect(install.stdout).toMatch(/\npackageserver\s+olm\s+ClusterServiceVersion\s+Succeeded\n/);
    const status = await runTsop(["olm", "status", "-o", "json", ...kubeconfig]);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ verdict: "healthy", version: "v0.28.0" });
  }, 400_000);
});
