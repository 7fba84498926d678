// `tsop test upgrades` on one real bed (kube-apiserver, OLM v0.28.0's own operators, registry pods
// served by the real opm, bundles pulled from a real registry on 127.0.0.1), kept short for the
// serial olm lane: the memcached catalog v0.0.1 → v0.0.2 → v0.0.3 passes, both edges (each
// installed, reconciled by a stand-in operator that really runs, upgraded, checked, cleaned up);
// then a v0.0.3 whose CRD drops spec.size (the field the sample sets): `tsop catalog validate`
// refuses it statically (CAT-16), and the live run fails naming the edge, the sample and the field.
// The other red case (a served version dropped without conversion) is shown by the static check
// in test/catalog/ (CAT-18); a live run of it would add an edge of bed time for the same message.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { added, snapshot } from "../run/bed.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { basicTemplate, pushMemcachedBundle, pushStandIn } from "./bed-bundles.js";

const NS = "upgrades";
let registry: TestRegistry;
let bed: OlmBed;
let work: string;
const images: Record<string, string> = {};

const SAMPLE = `apiVersion: cache.example.com/v1alpha1
kind: Memcached
metadata:
  name: memcached-sample
spec:
  size: 3
`;

beforeAll(async () => {
  registry = await startRegistry();
  work = await mkdtemp(join(tmpdir(), "tsop-upgrades-"));
  const [, image] = await Promise.all([
    startOlmBed({ namespaces: [NS] }).then((b) => (bed = b)),
    pushStandIn(registry),
  ]);
  const push = (
    version: string,
    replaces?: string,
    crd?: (crd: KubeObject) => void,
    repo = "memcached-bundle",
  ) => pushMemcachedBundle(registry, repo, { version, image, replaces, crd });
  images["0.0.1"] = await push("0.0.1");
  images["0.0.2"] = await push("0.0.2", "memcached-operator.v0.0.1");
  images["0.0.3"] = await push("0.0.3", "memcached-operator.v0.0.2");
  images["0.0.3-bad"] = await push(
    "0.0.3",
    "memcached-operator.v0.0.1",
    (crd) => {
      const schema = (
        crd.spec!.versions as Array<{
          schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
        }>
      )[0]!.schema;
      schema.openAPIV3Schema.properties.spec.properties = { replicas: { type: "integer" } };
    },
    "memcached-bundle-bad",
  );
  await mkdir(join(work, "samples"));
  await writeFile(join(work, "samples", "memcached-sample.yaml"), SAMPLE);
  await writeFile(join(work, "samples", "kustomization.yaml"), "resources: [memcached-sample.yaml]\n");
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
      join(work, "samples"),
      "-n",
      NS,
      "--install-mode",
      "OwnNamespace",
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
      { version: "0.0.3", image: images["0.0.3-bad"]! },
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
    "edge memcached-operator: memcached-operator.v0.0.1 → memcached-operator.v0.0.3, sample Memcached memcached-sample, field .spec.size: field .spec.size (set to 3) is gone",
  );
  expect(run.stdout).toContain("0 of 1 edge(s) passed");
}, 900_000);
