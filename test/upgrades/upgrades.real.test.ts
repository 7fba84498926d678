// `tsop test upgrades` on one real bed (kube-apiserver, OLM v0.28.0's own operators, registry pods
// served by the real opm, bundles pulled from a real registry on 127.0.0.1) with the memcached
// operator built from the scaffold (`tsop init` + `create api`, `tsop image build`; its process run
// by the bed's pod runner with the CSV's RBAC, reconciling the sample into a Deployment whose pods
// the runner runs too). Kept short for the serial olm lane: the image is built once and the
// releases share it. The catalog v0.0.1 → v0.0.2 → v0.0.3 passes, both edges (each installed,
// reconciled, upgraded, reconciled again by the new operator, checked, cleaned up); a v0.0.3 whose
// CRD drops spec.size (the field the sample sets) fails naming the edge, the sample and the field
// (and `tsop catalog validate` refuses it statically, CAT-16); a v0.0.3 whose CRD stops serving
// v1alpha1 (v1beta1 served instead, no conversion webhook) fails live naming the edge, the sample
// and the version (tsop test upgrades does not run the static checks: the live check reports it).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { added, snapshot } from "../run/bed.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { basicTemplate, buildMemcachedOperator, crdVersions, pushRelease } from "./operator-bundles.js";

const NS = "upgrades";
let registry: TestRegistry;
let bed: OlmBed;
let work: string;
let samples: string;
const images: Record<string, string> = {};

/** v0.0.3's CRD without spec.size. */
function dropSize(crd: KubeObject) {
  const spec = crdVersions(crd)[0]!.schema.openAPIV3Schema.properties.spec;
  delete spec.properties.size;
  if (spec.required) spec.required = spec.required.filter((f) => f !== "size");
}

/** v0.0.3's CRD serving v1beta1 (storage) instead of v1alpha1, with no conversion webhook. */
function unserveV1alpha1(crd: KubeObject, csv: KubeObject) {
  const [v1alpha1] = crdVersions(crd);
  crdVersions(crd).push({ ...structuredClone(v1alpha1!), name: "v1beta1", served: true, storage: true });
  v1alpha1!.served = false;
  v1alpha1!.storage = false;
  // The CSV owns the version it serves (OLM requires an owned CRD's version to be served).
  for (const owned of (csv.spec!.customresourcedefinitions as { owned: Array<{ version: string }> }).owned)
    owned.version = "v1beta1";
}

beforeAll(async () => {
  registry = await startRegistry();
  work = await mkdtemp(join(tmpdir(), "tsop-upgrades-"));
  const [, operator] = await Promise.all([
    startOlmBed({ namespaces: [NS] }).then((b) => (bed = b)),
    buildMemcachedOperator(work, registry),
  ]);
  const push = (version: string, repository: string, crd?: Parameters<typeof pushRelease>[1]["crd"]) =>
    pushRelease(operator, { version, repository, crd });
  images["0.0.1"] = await push("0.0.1", "memcached-bundle");
  images["0.0.2"] = await push("0.0.2", "memcached-bundle");
  images["0.0.3"] = await push("0.0.3", "memcached-bundle");
  images["0.0.3-no-size"] = await push("0.0.3", "memcached-bundle-no-size", dropSize);
  images["0.0.3-unserved"] = await push("0.0.3", "memcached-bundle-unserved", unserveV1alpha1);
  // The scaffold's own sample (spec.size: 1), as a user's config/samples holds it.
  samples = join(operator.project, "config/samples");
}, 900_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

function testUpgrades(template: string, extra: string[] = []) {
  return runTsop(
    [
      "test",
      "upgrades",
      template,
      "--fixtures",
      samples,
      "-n",
      NS,
      "--plain-http",
      "--timeout",
      "4m",
      "--kubeconfig",
      bed.cluster.kubeconfigPath,
      ...extra,
    ],
    { cwd: work, timeoutMs: 1_200_000 },
  );
}

interface Report {
  ok: boolean;
  edges: Array<{
    edge: string;
    ok: boolean;
    steps: Array<{ step: string; ms: number; ok: boolean }>;
    failures: Array<{ step: string; sample?: string; field?: string; message: string }>;
  }>;
}

it("v0.0.1 → v0.0.2 → v0.0.3: every edge installs, reconciles, upgrades, keeps the sample and its fields; nothing left after", async () => {
  const before = await snapshot(bed.cluster.kubeconfigPath);
  const template = join(work, "good.yaml");
  await writeFile(
    template,
    basicTemplate(["0.0.1", "0.0.2", "0.0.3"].map((version) => ({ version, image: images[version]! }))),
  );
  const run = await testUpgrades(template, ["-o", "json"]);
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  const report = JSON.parse(run.stdout) as Report;
  expect(report.edges.map((e) => [e.edge, e.ok])).toEqual([
    ["memcached-operator: memcached-operator.v0.0.1 → memcached-operator.v0.0.2", true],
    ["memcached-operator: memcached-operator.v0.0.2 → memcached-operator.v0.0.3", true],
  ]);
  for (const edge of report.edges) {
    expect(edge.steps.map((s) => s.step)).toEqual([
      "install",
      "samples",
      "reconciled",
      "upgrade",
      "check",
      "cleanup",
    ]);
    expect(edge.steps.every((s) => s.ok && s.ms >= 0)).toBe(true);
  }
  // The reconcile check reset the condition and the new operator set it again: the progress says so.
  expect(run.stderr).toContain("Memcached memcached-sample reconciled by memcached-operator.v0.0.3");
  // Each edge cleaned up after itself (CRDs included): the cluster is as before.
  let left: string[] = [];
  for (
    const deadline = Date.now() + 90_000;
    Date.now() < deadline;
    await new Promise((r) => setTimeout(r, 2000))
  ) {
    left = added(before, await snapshot(bed.cluster.kubeconfigPath));
    if (left.length === 0) break;
  }
  expect(left).toEqual([]);
}, 1_500_000);

it("a v0.0.3 whose CRD drops spec.size: catalog validate says CAT-16, and the live run fails naming edge, sample and field", async () => {
  const template = join(work, "bad.yaml");
  await writeFile(
    template,
    basicTemplate([
      { version: "0.0.1", image: images["0.0.1"]! },
      { version: "0.0.3", image: images["0.0.3-no-size"]! },
    ]),
  );
  const validate = await runTsop(["catalog", "validate", "--template", template, "--plain-http"], {
    cwd: work,
  });
  expect(validate.exitCode, validate.stderr).toBe(1);
  expect(validate.stdout).toContain(
    "error CAT-16 memcached-operator/alpha: memcached-operator.v0.0.3 removes field .spec.size from memcacheds.cache.example.com v1alpha1",
  );

  const run = await testUpgrades(template);
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1);
  expect(run.stdout).toContain(
    "FAIL  memcached-operator: memcached-operator.v0.0.1 → memcached-operator.v0.0.3",
  );
  expect(run.stdout).toContain(
    "edge memcached-operator: memcached-operator.v0.0.1 → memcached-operator.v0.0.3, sample Memcached memcached-sample, field .spec.size: field .spec.size (set to 1) is gone",
  );
  expect(run.stdout).toContain("0 of 1 edge(s) passed");
}, 900_000);

it("a v0.0.3 whose CRD no longer serves v1alpha1 (no conversion): the live run fails naming edge, sample and version", async () => {
  const template = join(work, "unserved.yaml");
  await writeFile(
    template,
    basicTemplate([
      { version: "0.0.1", image: images["0.0.1"]! },
      { version: "0.0.3", image: images["0.0.3-unserved"]! },
    ]),
  );
  // The new operator watches v1alpha1, which is no longer served: it never becomes ready, so the
  // upgrade fails at its timeout (a short one here), and the checks that need no new operator name why.
  const run = await testUpgrades(template, ["--timeout", "1m"]);
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1);
  expect(run.stdout).toContain(
    "FAIL  memcached-operator: memcached-operator.v0.0.1 → memcached-operator.v0.0.3",
  );
  expect(run.stdout).toMatch(/\n {2}upgrade +\S+ +failed\n {2}check +\S+ +failed\n/);
  expect(run.stdout).toContain(
    "edge memcached-operator: memcached-operator.v0.0.1 → memcached-operator.v0.0.3: run bundle-upgrade failed while waiting for the ClusterServiceVersion to succeed",
  );
  expect(run.stdout).toContain(
    "edge memcached-operator: memcached-operator.v0.0.1 → memcached-operator.v0.0.3, sample Memcached memcached-sample, field apiVersion cache.example.com/v1alpha1: memcached-operator.v0.0.3 no longer serves cache.example.com/v1alpha1, which memcached-operator.v0.0.1 served (no conversion webhook)",
  );
  expect(run.stdout).toContain("0 of 1 edge(s) passed");
}, 900_000);
