// The catalog on real OLM (v0.28, the bed's pod runner): `tsop catalog image` builds the catalog on
// an opm base; OLM's registry pod for a CatalogSource runs that image's own entrypoint (opm serve
// /configs) as a process; a Subscription installs v0.0.1 from it; after `catalog add` of v0.0.2 and
// a new catalog image, the CatalogSource points at it and OLM upgrades along the graph to v0.0.2.
// A catalog that would strand users (the head skips but replaces nothing) is refused by
// `tsop catalog validate` before any image is built. The operator's pods are kwok's (their image
// is on quay.io): the subject here is the catalog, not the operator.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { type Env, eventually, kubectl, kubectlJson } from "../operator/support.js";
import { csvName, PKG, pushBundle } from "./bundles.js";
import { pushOpmBase } from "./opm-base.js";

const NS = "widgets";
let registry: TestRegistry;
let bed: OlmBed;
let work: string;
let base: string;
let env: Env;
const bundles: Record<string, string> = {};

beforeAll(async () => {
  registry = await startRegistry();
  work = await mkdtemp(join(tmpdir(), "tsop-catalog-olm-"));
  const operatorImage = (v: string) => `quay.io/example/widget-operator:v${v}`;
  const [started] = await Promise.all([
    startOlmBed({ namespaces: [NS] }),
    (async () => {
      base = await pushOpmBase(registry);
      bundles["0.0.1"] = await pushBundle(registry, {
        version: "0.0.1",
        operatorImage: operatorImage("0.0.1"),
      });
      bundles["0.0.2"] = await pushBundle(registry, {
        version: "0.0.2",
        operatorImage: operatorImage("0.0.2"),
      });
      bundles["0.0.3"] = await pushBundle(registry, {
        version: "0.0.3",
        operatorImage: operatorImage("0.0.3"),
        skips: [csvName("0.0.2")],
      });
    })(),
  ]);
  bed = started;
  env = { KUBECONFIG: bed.cluster.kubeconfigPath };
}, 900_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

async function tsop(args: string[]) {
  const run = await runTsop([...args, `--plain-http=${registry.host}`], { cwd: work, timeoutMs: 120_000 });
  expect(run.exitCode, `tsop ${args.join(" ")}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return run.stdout.trim();
}

/** add → render → validate → image: the catalog workflow; returns the pinned catalog image. */
async function release(version: string): Promise<string> {
  await tsop(["catalog", "add", bundles[version]!]);
  await tsop(["catalog", "render"]);
  const validate = await runTsop(["catalog", "validate"], { cwd: work });
  expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
  return tsop(["catalog", "image", `${registry.host}/widget-catalog:latest`, "--base", base]);
}

async function apply(objects: object[]) {
  const applied = await kubectl(env, ["apply", "-f", "-"], {
    input: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  });
  expect(applied.exitCode, applied.all).toBe(0);
}

const catalogSource = (image: string) => ({
  apiVersion: "operators.coreos.com/v1alpha1",
  kind: "CatalogSource",
  metadata: { name: "widgets", namespace: NS },
  spec: { sourceType: "grpc", image, displayName: "Widgets" },
});

const describeState = async () =>
  (
    await kubectl(env, ["get", "catalogsource,subscription,installplan,csv,pods", "-n", NS, "-o", "yaml"])
  ).all?.slice(-6000) ?? "";

async function succeeded(csv: string): Promise<KubeObject> {
  return eventually(
    `${csv} Succeeded`,
    async () => {
      const got = await kubectlJson(env, ["get", "csv", csv, "-n", NS]);
      return (got.status as { phase?: string } | undefined)?.phase === "Succeeded" ? got : undefined;
    },
    240_000,
    describeState,
  );
}

/** The registry pod serving the CatalogSource: running our image, by its digest. */
async function servingPod(pinned: string): Promise<KubeObject> {
  return eventually(
    `the catalog pod running ${pinned}`,
    async () => {
      const pods = await kubectlJson<{ items: KubeObject[] }>(env, [
        "get",
        "pods",
        "-n",
        NS,
        "-l",
        "olm.catalogSource=widgets",
      ]);
      return pods.items.find((p) => {
        const status = (p.status ?? {}) as { containerStatuses?: Array<{ ready: boolean; imageID: string }> };
        const spec = p.spec as { containers: Array<{ image: string }> };
        return spec.containers[0]?.image === pinned && status.containerStatuses?.[0]?.ready === true;
      });
    },
    180_000,
    describeState,
  );
}

it(
  "OLM installs v0.0.1 from the catalog image, upgrades to v0.0.2 from the next; a stranding catalog is refused",
  { timeout: 600_000 },
  async () => {
    const first = await release("0.0.1");
    await apply([
      {
        apiVersion: "operators.coreos.com/v1",
        kind: "OperatorGroup",
        metadata: { name: "widgets", namespace: NS },
        spec: { targetNamespaces: [NS] },
      },
      catalogSource(first),
      {
        apiVersion: "operators.coreos.com/v1alpha1",
        kind: "Subscription",
        metadata: { name: PKG, namespace: NS },
        spec: {
          name: PKG,
          channel: "alpha",
          source: "widgets",
          sourceNamespace: NS,
          installPlanApproval: "Automatic",
        },
      },
    ]);
    const pod = await servingPod(first);
    // The image's own entrypoint runs (OLM sets no command): opm serve /configs.
    expect(
      (pod.spec as { containers: Array<{ command?: string[] }> }).containers[0]!.command,
    ).toBeUndefined();
    const logs = await kubectl(env, ["logs", "-n", NS, pod.metadata.name!]);
    expect(logs.all).toMatch(/serving registry/);
    await succeeded(csvName("0.0.1"));

    const second = await release("0.0.2");
    expect(second).not.toBe(first);
    await apply([catalogSource(second)]);
    await servingPod(second);
    await succeeded(csvName("0.0.2"));
    // OLM records the upgrade on the Subscription and deletes the replaced CSV after the new one
    // succeeded, each in its own later sync: wait for those states, as a user's `kubectl wait` would.
    await eventually(
      "the Subscription's installedCSV to be v0.0.2",
      async () => {
        const sub = await kubectlJson(env, ["get", "subscription", PKG, "-n", NS]);
        return (sub.status as { installedCSV?: string } | undefined)?.installedCSV === csvName("0.0.2");
      },
      120_000,
      describeState,
    );
    await eventually(
      "the replaced CSV v0.0.1 to be deleted",
      async () => (await kubectl(env, ["get", "csv", csvName("0.0.1"), "-n", NS])).exitCode !== 0,
      120_000,
      describeState,
    );

    // v0.0.3 skips v0.0.2 but replaces nothing: v0.0.1 falls off the replaces chain. Refused before
    // any image is built; the serving catalog stays the v0.0.2 one.
    const template = join(work, "stranded.yaml");
    await writeFile(
      template,
      JSON.stringify({
        schema: "olm.template.basic",
        entries: [
          { schema: "olm.package", name: PKG, defaultChannel: "alpha" },
          {
            schema: "olm.channel",
            package: PKG,
            name: "alpha",
            entries: [
              { name: csvName("0.0.1") },
              { name: csvName("0.0.2"), replaces: csvName("0.0.1") },
              { name: csvName("0.0.3"), skips: [csvName("0.0.2")] },
            ],
          },
          ...["0.0.1", "0.0.2", "0.0.3"].map((v) => ({ schema: "olm.bundle", image: bundles[v] })),
        ],
      }),
    );
    const refused = await runTsop(
      ["catalog", "validate", "--template", template, `--plain-http=${registry.host}`],
      { cwd: work },
    );
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain(
      `error CAT-05 ${PKG}/alpha: ${csvName("0.0.1")} is neither on ${csvName("0.0.3")}'s replaces chain`,
    );
  },
);
