// The built CLI as a user runs it: `tsop run bundle` (--dry-run, a pull secret, Ctrl-C),
// `tsop run bundle-upgrade` (--dry-run) and `tsop cleanup`, against tsop/testing + the OLM model + real local registries.
import { execa } from "execa";
import { parseAllDocuments } from "yaml";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runTsop, TSOP_BIN } from "../support/cli.js";
import {
  type BundleRegistry,
  names,
  type RunEnv,
  startBundleRegistry,
  startRunEnv,
  tsopObjects,
} from "./harness.js";

const OLM = "operators.coreos.com/v1alpha1";
let open: BundleRegistry;
let secured: BundleRegistry;
let env: RunEnv | undefined;

beforeAll(async () => {
  [open, secured] = await Promise.all([startBundleRegistry("none"), startBundleRegistry("htpasswd")]);
}, 90_000);
afterAll(async () => {
  await Promise.all([open?.stop(), secured?.stop()]);
});
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

describe("tsop run bundle (CLI)", () => {
  it("--dry-run prints every object as YAML and creates nothing", async () => {
    env = await startRunEnv();
    const result = await runTsop(
      [
        "run",
        "bundle",
        open.image("0.0.1"),
        "-n",
        "demo",
        "--dry-run",
        "--kubeconfig",
        env.cluster.kubeconfigPath,
      ],
      { env: open.env },
    );
    expect(result.stderr).toContain("Dry run: nothing was sent to the cluster");
    expect(result.exitCode).toBe(0);
    const docs = parseAllDocuments(result.stdout).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string } },
    );
    expect(docs.map((d) => d.kind)).toEqual([
      "CatalogSource",
      "ConfigMap",
      "Pod",
      "Service",
      "OperatorGroup",
      "Subscription",
    ]);
    expect(docs[5]?.metadata.name).toBe("memcached-operator-sub");
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
    expect(
      env.cluster.requests.filter((r) => r.method !== "GET" && r.path.includes("/namespaces/demo/")),
    ).toEqual([]);
    // Never contacts the cluster (works without one), and the same plan is byte-identical.
    const again = await runTsop(
      [
        "run",
        "bundle",
        open.image("0.0.1"),
        "-n",
        "demo",
        "--dry-run",
        "--kubeconfig",
        "/nonexistent/kubeconfig",
      ],
      { env: open.env },
    );
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe(result.stdout);
  }, 60_000);

  it("installs with a pull secret from a registry that needs credentials, then cleanup removes it", async () => {
    env = await startRunEnv();
    await env.client.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "regcred", namespace: "demo" },
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": Buffer.from("{}").toString("base64") },
    });
    const kube = ["--kubeconfig", env.cluster.kubeconfigPath, "-n", "demo"];
    // Without credentials tsop's own pull fails before anything is created.
    const denied = await runTsop(
      ["run", "bundle", secured.image("0.0.1"), ...kube, "--pull-secret-name", "regcred"],
      {
        env: { HOME: "/nonexistent" },
      },
    );
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toMatch(/error: .*(auth|credential|401|unauthorized)/i);
    expect(await tsopObjects(env.client, "demo")).toEqual([]);

    const result = await runTsop(
      [
        "run",
        "bundle",
        secured.image("0.0.1"),
        ...kube,
        "--pull-secret-name",
        "regcred",
        "--timeout",
        "30s",
        "-o",
        "json",
      ],
      { env: secured.env },
    );
    expect(result.stderr).not.toContain("error:");
    expect(result.exitCode).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ csv: "memcached-operator.v0.0.1", namespace: "demo", dryRun: false });
    const cs = await env.client.get({
      apiVersion: OLM,
      kind: "CatalogSource",
      namespace: "demo",
      name: "memcached-operator-catalog",
    });
    expect(cs?.spec?.secrets).toEqual(["regcred"]);
    const pod = (
      await env.client.list("v1", "Pod", { namespace: "demo", labelSelector: "tsop.dev/component=registry" })
    ).items[0];
    expect(pod?.spec?.imagePullSecrets).toEqual([{ name: "regcred" }]);

    const cleaned = await runTsop(["cleanup", "memcached-operator", ...kube]);
    expect(cleaned.exitCode).toBe(0);
    // The count announced is the count listed: each object deleted, or already gone with its owner.
    const announced = Number(/Deleting (\d+) object\(s\) of package/.exec(cleaned.stderr)?.[1]);
    const block = cleaned.stderr.slice(
      cleaned.stderr.indexOf("Deleting "),
      cleaned.stderr.indexOf("Removed package"),
    );
    const listed = block.split("\n").filter((l) => /^ {2}(deleted |\S.*: already gone \()/.test(l));
    expect(listed.length, cleaned.stderr).toBe(announced);
    expect(listed.filter((l) => l.includes("already gone")).length, cleaned.stderr).toBeGreaterThan(0);
    expect(cleaned.stdout).toMatch(/^KIND\s+NAMESPACE\s+NAME\s+ACTION\n/);
    expect(cleaned.stdout).toMatch(/Subscription\s+demo\s+memcached-operator-sub\s+deleted/);
    expect(cleaned.stdout).toMatch(
      /CustomResourceDefinition\s+memcacheds.cache.example.com\s+kept \(owned CRD; pass --delete-crds/,
    );
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
    expect(await names(env.client, "v1", "Secret", "demo")).toContain("regcred");
  }, 90_000);

  it("reports a missing pull secret and a bad --install-mode as clear errors", async () => {
    env = await startRunEnv();
    const kube = ["--kubeconfig", env.cluster.kubeconfigPath, "-n", "demo"];
    const missing = await runTsop(
      ["run", "bundle", open.image("0.0.1"), ...kube, "--pull-secret-name", "nope"],
      { env: open.env },
    );
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(
      'pull secret "nope" (--pull-secret-name) does not exist in namespace "demo"',
    );
    expect(missing.stderr).toContain("hint: create it first");
    const bad = await runTsop(
      ["run", "bundle", open.image("0.0.1"), ...kube, "--install-mode", "SingleNamespace"],
      { env: open.env },
    );
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--install-mode SingleNamespace needs exactly one namespace");
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
  }, 60_000);

  it("Ctrl-C (SIGINT) mid-run removes what the run created and exits 130", async () => {
    env = await startRunEnv({ model: { delays: { csvPhaseMs: 60_000 } } });
    const child = execa(
      process.execPath,
      [
        TSOP_BIN,
        "run",
        "bundle",
        open.image("0.0.1"),
        "--kubeconfig",
        env.cluster.kubeconfigPath,
        "-n",
        "demo",
      ],
      {
        env: { ...open.env, NO_COLOR: "1" },
        reject: false,
      },
    );
    let stderr = "";
    await new Promise<void>((resolve) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes("waiting for ClusterServiceVersion")) resolve();
      });
    });
    child.kill("SIGINT");
    const done = await child;
    expect(done.exitCode).toBe(130);
    expect(done.stderr).toContain("interrupted: removing what this run created");
    expect(done.stderr).toContain(
      "run bundle failed while waiting for the ClusterServiceVersion to succeed: interrupted",
    );
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([]);
  }, 60_000);

  it("run bundle, then bundle-upgrade, then cleanup --dry-run, as a user types them", async () => {
    env = await startRunEnv();
    const kube = ["--kubeconfig", env.cluster.kubeconfigPath, "-n", "demo"];
    const installed = await runTsop(["run", "bundle", open.image("0.0.1"), ...kube], { env: open.env });
    expect(installed.exitCode).toBe(0);
    expect(installed.stdout).toMatch(
      /^memcached-operator\.v0\.0\.1 installed in namespace demo \(CatalogSource memcached-operator-catalog/,
    );
    expect(installed.stderr).toContain(
      "… waiting for ClusterServiceVersion demo/memcached-operator.v0.0.1 to succeed",
    );
    // --dry-run reads the install and prints what the upgrade would create or change; it changes nothing.
    const catalogRef = {
      apiVersion: OLM,
      kind: "CatalogSource",
      namespace: "demo",
      name: "memcached-operator-catalog",
    };
    const before = await tsopObjects(env.client, "demo");
    const addressBefore = (await env.client.get(catalogRef))?.spec?.address as string;
    const dryUpgrade = await runTsop(
      ["run", "bundle-upgrade", open.image("0.0.2"), ...kube, "--dry-run", "-o", "yaml"],
      { env: open.env },
    );
    expect(dryUpgrade.stderr).not.toContain("error:");
    expect(dryUpgrade.exitCode).toBe(0);
    const printed = parseAllDocuments(dryUpgrade.stdout).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string }; spec?: { address?: string } },
    );
    expect(printed.map((o) => o.kind)).toEqual(["ConfigMap", "Pod", "Service", "CatalogSource"]);
    const newAddress = printed[3]?.spec?.address;
    expect(newAddress).toBe(`${printed[2]?.metadata.name}.demo.svc:50051`);
    expect(newAddress).not.toBe(addressBefore);
    const dryJson = await runTsop(
      ["run", "bundle-upgrade", open.image("0.0.2"), ...kube, "--dry-run", "-o", "json"],
      { env: open.env },
    );
    expect(dryJson.exitCode).toBe(0);
    const list = JSON.parse(dryJson.stdout) as { kind: string; items: typeof printed };
    expect(list.kind).toBe("List");
    expect(list.items.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      printed.map((o) => `${o.kind}/${o.metadata.name}`),
    );
    expect(await tsopObjects(env.client, "demo")).toEqual(before);
    expect((await env.client.get(catalogRef))?.spec?.address).toBe(addressBefore);
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([
      "memcached-operator.v0.0.1",
    ]);

    const upgraded = await runTsop(["run", "bundle-upgrade", open.image("0.0.2"), ...kube], {
      env: open.env,
    });
    expect(upgraded.stderr).not.toContain("error:");
    expect(upgraded.exitCode).toBe(0);
    // Each object is named once: "CatalogSource ns/name", never "CatalogSource CatalogSource ns/name".
    expect(upgraded.stderr).toContain(
      "CatalogSource demo/memcached-operator-catalog to be READY on the new registry pod",
    );
    expect(upgraded.stderr).not.toMatch(
      /\b(CatalogSource|ClusterServiceVersion|pod) (CatalogSource|ClusterServiceVersion|Pod) /,
    );
    expect(upgraded.stdout).toBe(
      "memcached-operator upgraded from memcached-operator.v0.0.1 to memcached-operator.v0.0.2 in namespace demo\n",
    );
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([
      "memcached-operator.v0.0.2",
    ]);
    // The dry run printed the registry the upgrade then created.
    expect((await env.client.get(catalogRef))?.spec?.address).toBe(newAddress);
    const dry = await runTsop(["cleanup", "memcached-operator", ...kube, "--dry-run", "-o", "json"]);
    expect(dry.exitCode).toBe(0);
    const plan = JSON.parse(dry.stdout) as { items: Array<{ kind: string; name: string; action: string }> };
    expect(plan.items.filter((i) => i.action === "would delete").map((i) => `${i.kind}/${i.name}`)).toContain(
      "ClusterServiceVersion/memcached-operator.v0.0.2",
    );
    expect((await tsopObjects(env.client, "demo")).length).toBe(6);
  }, 90_000);
});
