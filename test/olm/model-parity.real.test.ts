// The fast tier's OLM model against real OLM: the same tsop commands run in two worlds, tsop/testing
// with the model (test/support/olm-model) and the real bed (kube-apiserver + OLM v0.28.0 + opm), and
// what kubectl sees afterwards must be the same. This guards every behaviour the fast tier takes from
// the model: install in AllNamespaces and OwnNamespace mode, upgrade through replaces and to a CSV
// that names none, a required API nothing provides, and cleanup. Each case cleans its namespace in both
// worlds even when it fails, so one failure does not cascade into the next case.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { pushBundle, withoutRequiredApis } from "../run/bed.js";
import { type RunEnv, startRunEnv } from "../run/harness.js";

const NAMESPACES = ["par-all", "par-own", "par-unchained", "par-requires"];

type WorldName = "model" | "real";
interface World {
  name: WorldName;
  kubeconfig: string;
}

let registry: TestRegistry;
let bed: OlmBed;
let modelEnv: RunEnv;
let worlds: World[];
const images: Record<string, string> = {};

beforeAll(async () => {
  registry = await startRegistry();
  images.v1 = await pushBundle(registry, "parity", "0.0.1", withoutRequiredApis);
  images.v2 = await pushBundle(registry, "parity", "0.0.2", (csv) => {
    withoutRequiredApis(csv);
    delete csv.metadata.annotations!["olm.skipRange"];
  });
  images.unchained = await pushBundle(registry, "parity-unchained", "0.0.2", (csv) => {
    withoutRequiredApis(csv);
    delete csv.spec!.replaces;
  });
  images.requires = await pushBundle(registry, "parity-requires", "0.0.1");
  [bed, modelEnv] = await Promise.all([
    startOlmBed({ namespaces: NAMESPACES }),
    startRunEnv({ namespace: false }),
  ]);
  for (const name of NAMESPACES) {
    await modelEnv.client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }
  worlds = [
    { name: "model", kubeconfig: modelEnv.cluster.kubeconfigPath },
    { name: "real", kubeconfig: bed.cluster.kubeconfigPath },
  ];
}, 900_000);

afterAll(async () => {
  await modelEnv?.stop();
  await bed?.stop();
  await registry?.stop();
}, 120_000);

/** Runs `step` in both worlds at once; returns each world's result by name. */
async function inBoth<T>(step: (world: World) => Promise<T>): Promise<Record<WorldName, T>> {
  const [model, real] = await Promise.all(worlds.map(step));
  return { model: model!, real: real! };
}

async function tsop(world: World, args: string[]): Promise<number> {
  const run = await runTsop([...args, "--kubeconfig", world.kubeconfig], { timeoutMs: 330_000 });
  if (process.env.TSOP_PARITY_DEBUG) console.error(`[${world.name}] tsop ${args.join(" ")}\n${run.stderr}`);
  return run.exitCode;
}

function runBundle(world: World, image: string, namespace: string, mode = "OwnNamespace"): Promise<number> {
  const args = ["run", "bundle", image, "-n", namespace, "--install-mode", mode];
  return tsop(world, [...args, "--plain-http", "--timeout", "4m"]);
}

function upgrade(world: World, image: string, namespace: string): Promise<number> {
  return tsop(world, ["run", "bundle-upgrade", image, "-n", namespace, "--plain-http", "--timeout", "4m"]);
}

async function kubectl(world: World, args: string[]): Promise<KubeObject & { items: KubeObject[] }> {
  const { stdout } = await execa("kubectl", ["get", ...args, "-o", "json"], {
    env: { KUBECONFIG: world.kubeconfig },
  });
  return JSON.parse(stdout) as KubeObject & { items: KubeObject[] };
}

/**
 * An unapproved plan that no Subscription points at. Real OLM left one behind an upgrade in two CI
 * runs (three plans where the model had two): v0.28's catalog operator skips re-resolving a
 * namespace only while its Subscription is UpgradePending, so a catalog event during an install can
 * resolve again and ensureInstallPlan makes a plan of the next generation (our reading of its
 * source; the runs kept no OLM logs). Once it was for the CSV just installed; once, its CSVs were no
 * longer there to tell (most likely the first install's, since replaced), so what marks it is that
 * nothing waits on it: the Subscription, compared separately, points at the plan it installed from
 * (a Subscription waiting for approval would be UpgradePending). It installs nothing, and the model,
 * which has no such race, never makes one, so the comparison leaves it out.
 */
function strayPlan(plan: KubeObject, referenced: Set<string>): boolean {
  return (
    plan.spec?.approved !== true &&
    plan.status?.phase === "RequiresApproval" &&
    !referenced.has(String(plan.metadata.name))
  );
}

/**
 * What tsop and a user read from OLM in a namespace, through kubectl: the CSVs (not OLM's copies),
 * the Subscription's state and true conditions, InstallPlans, tsop's CatalogSource state, the
 * OperatorGroup's target namespaces and the operator's Deployment and ServiceAccount.
 */
async function observe(world: World, namespace: string) {
  const get = async (kind: string) => (await kubectl(world, [kind, "-n", namespace])).items;
  const csvs = (await get("clusterserviceversions"))
    .filter((c) => !c.metadata.labels?.["olm.copiedFrom"])
    .map((c) => ({ name: c.metadata.name, phase: c.status?.phase, reason: c.status?.reason }));
  const subs = await get("subscriptions");
  const subscriptions = subs.map((s) => ({
    state: s.status?.state,
    installedCSV: s.status?.installedCSV,
    currentCSV: s.status?.currentCSV,
    // BundleUnpacking is progress only (tsop prints it, never decides on it); real OLM can still show
    // it for a moment after an upgrade has installed.
    conditions: ((s.status?.conditions ?? []) as Array<{ type: string; status: string; reason?: string }>)
      .filter((c) => c.status === "True" && c.type !== "BundleUnpacking")
      .map((c) => `${c.type}/${c.reason ?? ""}`)
      .sort(),
  }));
  const referenced = new Set(
    subs.flatMap((s) =>
      [s.status?.installPlanRef?.name, s.status?.installplan?.name].filter((n) => typeof n === "string"),
    ),
  );
  const plans = (await get("installplans"))
    .filter((p) => !strayPlan(p, referenced))
    .map((p) => `${p.spec?.approval} approved=${p.spec?.approved} ${p.status?.phase}`)
    .sort();
  const catalogs = (await get("catalogsources")).map((c) => c.status?.connectionState?.lastObservedState);
  const groups = (await get("operatorgroups")).map((g) => g.status?.namespaces);
  const deployments = (await get("deployments")).map((d) => d.metadata.name).sort();
  const accounts = (await get("serviceaccounts"))
    .map((a) => a.metadata.name)
    .filter((n) => n !== "default")
    .sort();
  return { csvs, subscriptions, plans, catalogs, groups, deployments, accounts };
}

/**
 * Observes both worlds until they agree or 60 s pass: garbage collection (a ServiceAccount owned by a
 * deleted CSV) and OLM's last status writes land a moment after the command that caused them.
 */
async function observeSettled(namespace: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = await inBoth((w) => observe(w, namespace));
    if (JSON.stringify(seen.model) === JSON.stringify(seen.real) || Date.now() > deadline) return seen;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** The clauses of a ConstraintsNotSatisfiable message, order-free (OLM's solver orders them freely). */
async function resolutionClauses(world: World, namespace: string): Promise<string[]> {
  const [sub] = (await kubectl(world, ["subscriptions", "-n", namespace])).items;
  const failed = ((sub?.status?.conditions ?? []) as Array<{ type: string; message?: string }>).find(
    (c) => c.type === "ResolutionFailed",
  );
  return (failed?.message ?? "")
    .replace(/^constraints not satisfiable: /, "")
    .split(/, (?=subscription |bundle )/)
    .sort();
}

/**
 * Runs a case, then removes what it installed from both worlds whatever the outcome (CRDs included:
 * every case installs the same package, and a CRD left by one would meet the next install).
 */
async function cleanedUp(namespace: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } finally {
    await inBoth((w) => tsop(w, ["cleanup", "memcached-operator", "-n", namespace, "--delete-crds"]));
  }
}

describe("the OLM model behaves like real OLM where the fast tier relies on it", () => {
  it("install in AllNamespaces mode", async () => {
    await cleanedUp("par-all", async () => {
      const exit = await inBoth((w) => runBundle(w, images.v1!, "par-all", "AllNamespaces"));
      expect(exit).toEqual({ model: 0, real: 0 });
      const seen = await observeSettled("par-all");
      expect(seen.real.csvs).toEqual([
        { name: "memcached-operator.v0.0.1", phase: "Succeeded", reason: "InstallSucceeded" },
      ]);
      expect(seen.real.groups).toEqual([[""]]);
      expect(seen.model).toEqual(seen.real);
    });
  }, 900_000);

  it("install in OwnNamespace mode, upgrade through replaces, cleanup", async () => {
    await cleanedUp("par-own", async () => {
      expect(await inBoth((w) => runBundle(w, images.v1!, "par-own"))).toEqual({ model: 0, real: 0 });
      const installed = await observeSettled("par-own");
      expect(installed.real.groups).toEqual([["par-own"]]);
      expect(installed.model).toEqual(installed.real);

      expect(await inBoth((w) => upgrade(w, images.v2!, "par-own"))).toEqual({ model: 0, real: 0 });
      const upgraded = await observeSettled("par-own");
      expect(upgraded.real.csvs).toEqual([
        { name: "memcached-operator.v0.0.2", phase: "Succeeded", reason: "InstallSucceeded" },
      ]);
      expect(upgraded.model).toEqual(upgraded.real);

      const cleanup = await inBoth((w) =>
        tsop(w, ["cleanup", "memcached-operator", "-n", "par-own", "--delete-crds"]),
      );
      expect(cleanup).toEqual({ model: 0, real: 0 });
      const after = await observeSettled("par-own");
      expect(after.real).toEqual({
        csvs: [],
        subscriptions: [],
        plans: [],
        catalogs: [],
        groups: [],
        deployments: [],
        accounts: [],
      });
      expect(after.model).toEqual(after.real);
    });
  }, 900_000);

  it("upgrade to a CSV that names no replaces: tsop's catalog chains it to the installed CSV in both worlds", async () => {
    await cleanedUp("par-unchained", async () => {
      expect(await inBoth((w) => runBundle(w, images.v1!, "par-unchained"))).toEqual({ model: 0, real: 0 });
      expect(await inBoth((w) => upgrade(w, images.unchained!, "par-unchained"))).toEqual({
        model: 0,
        real: 0,
      });
      const upgraded = await observeSettled("par-unchained");
      expect(upgraded.real.csvs).toEqual([
        { name: "memcached-operator.v0.0.2", phase: "Succeeded", reason: "InstallSucceeded" },
      ]);
      expect(upgraded.model).toEqual(upgraded.real);
    });
  }, 900_000);

  it("a required API that no catalog provides: ConstraintsNotSatisfiable in OLM's words, exit 4", async () => {
    await cleanedUp("par-requires", async () => {
      const run = ["run", "bundle", images.requires!, "-n", "par-requires", "--keep-on-failure"];
      const exit = await inBoth((w) => tsop(w, [...run, "--plain-http", "--timeout", "2m"]));
      expect(exit).toEqual({ model: 4, real: 4 });
      const clauses = await inBoth((w) => resolutionClauses(w, "par-requires"));
      expect(clauses.real).toContain(
        "bundle memcached-operator.v0.0.1 requires an operator providing an API with group: cert.example.com, version: v1, kind: Certificate",
      );
      expect(clauses.model).toEqual(clauses.real);
      const seen = await observeSettled("par-requires");
      expect(seen.model).toEqual(seen.real);
    });
  }, 900_000);
});
