// run bundle end to end: tsop/testing + OLM model + bundles pulled from a real local registry.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/common/errors.js";
import { gzipSync } from "node:zlib";
import { serializeCatalog, singleBundleCatalog } from "../../src/olm/run/catalog.js";
import { runBundle } from "../../src/olm/run/index.js";
import type { RunBundleOptions } from "../../src/olm/run/run-bundle.js";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { PullBundle } from "../../src/bundle/load/index.js";
import { withoutRequiredApis } from "./bed.js";
import { fixturePull, loadFixture } from "./fixtures.js";
import {
  type BundleRegistry,
  failure,
  runOptions,
  names,
  type RunEnv,
  startBundleRegistry,
  startRunEnv,
  tsopObjects,
} from "./harness.js";

const OLM = "operators.coreos.com/v1alpha1";
const OLM_V1 = "operators.coreos.com/v1";
let registry: BundleRegistry;
let env: RunEnv | undefined;

beforeAll(async () => {
  registry = await startBundleRegistry();
}, 60_000);
afterAll(async () => {
  await registry?.stop();
});
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

function options(e: RunEnv, extra: Partial<RunBundleOptions> = {}): RunBundleOptions {
  return runOptions(e, registry.image("0.0.1"), extra);
}

describe("run bundle", () => {
  it("installs in AllNamespaces mode: catalog READY, Manual plan approved, CSV Succeeded", async () => {
    env = await startRunEnv();
    const result = await runBundle(options(env));
    expect(result).toMatchObject({
      namespace: "demo",
      packageName: "memcached-operator",
      csv: "memcached-operator.v0.0.1",
      installMode: { type: "AllNamespaces", targetNamespaces: [] },
      catalogSource: "memcached-operator-catalog",
      subscription: "memcached-operator-sub",
      operatorGroup: { name: "tsop-operatorgroup", created: true },
    });
    const csv = await env.client.get({
      apiVersion: OLM,
      kind: "ClusterServiceVersion",
      namespace: "demo",
      name: result.csv,
    });
    expect(csv?.status?.phase).toBe("Succeeded");
    const plan = await env.client.get({
      apiVersion: OLM,
      kind: "InstallPlan",
      namespace: "demo",
      name: result.installPlan ?? "",
    });
    expect(plan?.spec).toMatchObject({
      approval: "Manual",
      approved: true,
      clusterServiceVersionNames: [result.csv],
    });
    const og = await env.client.get({
      apiVersion: OLM_V1,
      kind: "OperatorGroup",
      namespace: "demo",
      name: "tsop-operatorgroup",
    });
    expect(og?.spec).toEqual({ upgradeStrategy: "Default" });
    expect(env.reporter.text()).toContain("Approved InstallPlan");
    expect(result.phases.map((p) => p.phase)).toEqual([
      "preflight",
      "create catalog",
      "registry pod",
      "catalog",
      "operator group",
      "create subscription",
      "subscription",
      "install plan",
      "csv",
    ]);
    const rev = /catalog-(\w+)$/.exec(
      (await names(env.client, "v1", "Pod", "demo")).find((n) => n.startsWith("memcached")) ?? "",
    )?.[1];
    expect(await tsopObjects(env.client, "demo")).toEqual([
      "CatalogSource/memcached-operator-catalog",
      `ConfigMap/memcached-operator-catalog-${rev}-1`,
      "OperatorGroup/tsop-operatorgroup",
      `Pod/memcached-operator-catalog-${rev}`,
      `Service/memcached-operator-catalog-${rev}`,
      "Subscription/memcached-operator-sub",
    ]);
  }, 60_000);

  it("installs in OwnNamespace mode into a namespace it creates", async () => {
    env = await startRunEnv({ namespace: false });
    const result = await runBundle(
      options(env, { namespace: "fresh", createNamespace: true, installMode: "OwnNamespace" }),
    );
    expect(result.installMode).toEqual({ type: "OwnNamespace", targetNamespaces: ["fresh"], source: "flag" });
    const og = await env.client.get({
      apiVersion: OLM_V1,
      kind: "OperatorGroup",
      namespace: "fresh",
      name: "tsop-operatorgroup",
    });
    expect(og?.spec).toEqual({ targetNamespaces: ["fresh"], upgradeStrategy: "Default" });
    const csv = await env.client.get({
      apiVersion: OLM,
      kind: "ClusterServiceVersion",
      namespace: "fresh",
      name: result.csv,
    });
    expect(csv?.status?.phase).toBe("Succeeded");
    expect(csv?.metadata.annotations?.["olm.targetNamespaces"]).toBe("fresh");
  }, 60_000);

  it("installs in SingleNamespace mode watching another namespace", async () => {
    env = await startRunEnv();
    await env.client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "watched" } });
    const result = await runBundle(options(env, { installMode: "SingleNamespace=watched" }));
    expect(result.installMode).toEqual({
      type: "SingleNamespace",
      targetNamespaces: ["watched"],
      source: "flag",
    });
    const og = await env.client.get({
      apiVersion: OLM_V1,
      kind: "OperatorGroup",
      namespace: "demo",
      name: "tsop-operatorgroup",
    });
    expect(og?.spec).toEqual({ targetNamespaces: ["watched"], upgradeStrategy: "Default" });
    const csv = await env.client.get({
      apiVersion: OLM,
      kind: "ClusterServiceVersion",
      namespace: "demo",
      name: result.csv,
    });
    expect(csv?.metadata.annotations?.["olm.targetNamespaces"]).toBe("watched");
    expect(csv?.status?.phase).toBe("Succeeded");
  }, 60_000);

  it("serves a catalog split over several ConfigMaps (the registry pod mounts them all)", async () => {
    env = await startRunEnv();
    const bundle = await loadFixture("0.0.1", registry.image("0.0.1"));
    withoutRequiredApis(bundle.csv); // as the registry's image was pushed
    const largest = Math.max(...serializeCatalog(singleBundleCatalog(bundle)).map((d) => gzipSync(d).length));
    const result = await runBundle(options(env, { payloadLimit: largest + 16 }));
    expect(result.csv).toBe("memcached-operator.v0.0.1");
    const cms = (
      await env.client.list("v1", "ConfigMap", {
        namespace: "demo",
        labelSelector: "tsop.dev/component=catalog-content",
      })
    ).items;
    expect(cms.length).toBeGreaterThan(1);
    const pod = (
      await env.client.list("v1", "Pod", { namespace: "demo", labelSelector: "tsop.dev/component=registry" })
    ).items[0];
    const mounted = (pod?.spec?.volumes ?? []).flatMap((v: { configMap?: { name: string } }) =>
      v.configMap ? [v.configMap.name] : [],
    );
    expect(mounted.sort()).toEqual(cms.map((c) => c.metadata.name).sort());
  }, 60_000);

  it("reuses an existing compatible OperatorGroup", async () => {
    env = await startRunEnv();
    await env.client.create({
      apiVersion: OLM_V1,
      kind: "OperatorGroup",
      metadata: { name: "team-og", namespace: "demo" },
      spec: { targetNamespaces: ["demo"] },
    });
    const result = await runBundle(options(env));
    expect(result.operatorGroup).toEqual({ name: "team-og", created: false });
    expect(result.installMode).toEqual({
      type: "OwnNamespace",
      targetNamespaces: ["demo"],
      source: "operator-group",
    });
    expect(env.reporter.text()).toContain('using the existing OperatorGroup "team-og" (targets demo)');
    expect(await names(env.client, OLM_V1, "OperatorGroup", "demo")).toEqual(["team-og"]);
  }, 60_000);

  it("installs a SingleNamespace-only CSV into a namespace whose OperatorGroup fits it, without --install-mode", async () => {
    env = await startRunEnv();
    const singleOnly: PullBundle = async (image, destDir, pullOptions) => {
      const pulled = await fixturePull(image, destDir, pullOptions);
      const dir = join(destDir, "manifests");
      const file = (await readdir(dir)).find((f) => f.endsWith(".clusterserviceversion.yaml"))!;
      const csv = parse(await readFile(join(dir, file), "utf8"));
      withoutRequiredApis(csv); // nothing provides it, as on a real cluster
      csv.spec.installModes = ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"].map(
        (type) => ({ type, supported: type === "SingleNamespace" }),
      );
      await writeFile(join(dir, file), stringify(csv));
      return pulled;
    };
    // No group yet: tsop cannot guess the target namespace, and says what to pass.
    const guess = await failure(runBundle(options(env, { pull: singleOnly })));
    expect(guess.message).toContain("supports only SingleNamespace: tsop cannot guess the target namespaces");
    expect(await tsopObjects(env.client, "demo")).toEqual([]);

    await env.client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "watched" } });
    await env.client.create({
      apiVersion: OLM_V1,
      kind: "OperatorGroup",
      metadata: { name: "team-og", namespace: "demo" },
      spec: { targetNamespaces: ["watched"] },
    });
    const result = await runBundle(options(env, { pull: singleOnly }));
    expect(result.operatorGroup).toEqual({ name: "team-og", created: false });
    expect(result.installMode).toEqual({
      type: "SingleNamespace",
      targetNamespaces: ["watched"],
      source: "operator-group",
    });
  }, 60_000);

  it("refuses an incompatible OperatorGroup before creating anything", async () => {
    env = await startRunEnv();
    await env.client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
    await env.client.create({
      apiVersion: OLM_V1,
      kind: "OperatorGroup",
      metadata: { name: "multi", namespace: "demo" },
      spec: { targetNamespaces: ["demo", "other"] },
    });
    const error = await failure(runBundle(options(env)));
    expect(error.message).toContain("run bundle failed while checking the cluster");
    expect(error.message).toContain(
      "the existing OperatorGroup demo/multi targets demo, other, which needs install mode MultiNamespace + OwnNamespace",
    );
    expect(error.hint).toMatch(
      /install into another namespace \(-n\), or change or delete OperatorGroup demo\/multi/,
    );
    expect(error.exitCode).toBe(ExitCode.failure);
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
  }, 60_000);

  it("refuses a second install of the same package and a missing namespace", async () => {
    env = await startRunEnv();
    await runBundle(options(env));
    const again = await failure(runBundle(options(env)));
    expect(again.message).toContain(
      'package "memcached-operator" is already installed in namespace "demo" by tsop run bundle',
    );
    expect(again.hint).toContain("tsop run bundle-upgrade");
    expect(await names(env.client, OLM, "CatalogSource", "demo")).toEqual(["memcached-operator-catalog"]);
    const missing = await failure(runBundle(options(env, { namespace: "nope" })));
    expect(missing.message).toContain('namespace "nope" does not exist');
    expect(missing.hint).toBe("create it, or pass --create-namespace");
  }, 60_000);
});
