// `tsop bundle` options end to end: usage errors, upgrade edges, stale files, metadata, FBC,
// -f from a file, and `bundle validate` argument handling.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { bundle } from "../../src/bundle/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { testdir } from "../support/testdir.js";
import {
  BASE_FLAGS,
  copyFixture,
  CRD,
  DEPLOYMENT,
  MEMCACHED,
  miniProject,
  readYaml,
  tsop,
} from "./helpers.js";

const CSV_FILE = "bundle/manifests/demo-operator.clusterserviceversion.yaml";
const demo = () =>
  testdir(
    miniProject({ "crd.yaml": CRD, "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa") }),
  );
const run = (dir: string, args: string[], env: Record<string, string> = {}) =>
  tsop(dir, ["bundle", "--skip-generate", ...BASE_FLAGS, ...args], env);

describe("tsop bundle options", () => {
  test("usage errors: version, default channel, channel names, features", async () => {
    const dir = await demo();
    const v = await run(dir, ["--version", "v0.1.0"]);
    expect(v.exitCode).toBe(2);
    expect(v.stderr).toContain('"v0.1.0" is not a semantic version such as 0.0.1 (no leading "v")');
    expect((await run(dir, ["--version", "01.0.0"])).exitCode).toBe(2);
    const d = await run(dir, ["--channels", "alpha,beta", "--default-channel", "stable"]);
    expect(d.exitCode).toBe(2);
    expect(d.stderr).toContain('--default-channel "stable" is not one of --channels (alpha, beta)');
    const c = await run(dir, ["--channels", "bad channel"]);
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toContain('channel name "bad channel" may contain only letters');
    const f = await run(dir, ["--features", "disconnected=maybe"]);
    expect(f.exitCode).toBe(1);
    expect(f.stderr).toContain('--features: feature "disconnected" must be true or false, not "maybe"');
    const u = await run(dir, ["--features", "teleport=true"]);
    expect(u.stderr).toContain('--features: unknown OpenShift feature "teleport"');
    const fbc = await run(dir, ["--fbc"]);
    expect(fbc.exitCode).toBe(2);
    expect(fbc.stderr).toContain("--fbc needs the bundle image reference");
    // Nothing was written by any of these, not even the base CSV.
    await expect(readdir(join(dir, "bundle"))).rejects.toThrow();
    await expect(readdir(join(dir, "config/manifests/bases"))).rejects.toThrow();
  });

  test("--features writes features.operators.openshift.io/* and the legacy infrastructure-features list", async () => {
    const dir = await demo();
    const r = await run(dir, [
      "--version",
      "0.1.0",
      "--features",
      "proxy-aware=true,disconnected,fips-compliant=true,tls-profiles=true,cnf=false",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const csv = await readYaml(join(dir, CSV_FILE));
    const annotations = (csv.metadata as { annotations: Record<string, string> }).annotations;
    expect(annotations).toMatchObject({
      "features.operators.openshift.io/proxy-aware": "true",
      "features.operators.openshift.io/disconnected": "true",
      "features.operators.openshift.io/fips-compliant": "true",
      "features.operators.openshift.io/tls-profiles": "true",
      "features.operators.openshift.io/cnf": "false",
      // Older consoles read this list; tls-profiles has no legacy name, cnf is false.
      "operators.openshift.io/infrastructure-features": '["disconnected", "fips", "proxy-aware"]',
    });
  });

  test("-o json reports what happened; -q keeps stderr to warnings", async () => {
    const dir = await demo();
    const r = await run(dir, ["--version", "0.1.0", "-o", "json", "-q"]);
    expect(r.exitCode).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      outputDir: "bundle",
      csvName: "demo-operator.v0.1.0",
      base: { path: "config/manifests/bases/demo-operator.clusterserviceversion.yaml", status: "created" },
      files: {
        created: [
          "manifests/demo-operator.clusterserviceversion.yaml",
          "manifests/example.com_demos.yaml",
          "metadata/annotations.yaml",
        ],
        updated: [],
        removed: [],
      },
      dockerfile: "bundle.Dockerfile",
    });
    expect(r.stderr).not.toContain("Bundle written");
    expect(r.stderr).toContain("CSV-10");
  });

  test("replaces, skips, skipRange, --replaces-previous, and downgrades", async () => {
    const dir = await demo();
    expect((await run(dir, ["--version", "0.1.0"])).exitCode).toBe(0);
    const next = await run(dir, [
      "--version",
      "0.2.0",
      "--replaces-previous",
      "--skips",
      "demo-operator.v0.0.9",
      "--skip-range",
      ">=0.1.0 <0.2.0",
    ]);
    expect(next.exitCode).toBe(0);
    const csv = await readYaml(join(dir, CSV_FILE));
    expect(csv).toMatchObject({
      metadata: { name: "demo-operator.v0.2.0", annotations: { "olm.skipRange": ">=0.1.0 <0.2.0" } },
      spec: { replaces: "demo-operator.v0.1.0", skips: ["demo-operator.v0.0.9"], version: "0.2.0" },
    });
    // Re-running the same version keeps its replaces.
    expect((await run(dir, ["--version", "0.2.0", "--replaces-previous"])).exitCode).toBe(0);
    expect(((await readYaml(join(dir, CSV_FILE))).spec as Record<string, unknown>).replaces).toBe(
      "demo-operator.v0.1.0",
    );
    const down = await run(dir, ["--version", "0.1.5", "--replaces-previous"]);
    expect(down.exitCode).toBe(2);
    expect(down.stderr).toContain("--version 0.1.5 is lower than the previous bundle's 0.2.0");
    const bad = await run(dir, ["--version", "0.3.0", "--replaces", "Not_A_Name"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('CSV-02 spec.replaces: spec.replaces "Not_A_Name" cannot name a CSV');
  });

  test("stale manifests are removed and reported; user files in the bundle dir are kept", async () => {
    const dir = await testdir(
      miniProject({
        "crd.yaml": CRD,
        "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa"),
        "extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n",
      }),
    );
    expect((await run(dir, ["--version", "0.1.0"])).exitCode).toBe(0);
    expect(await readdir(join(dir, "bundle/manifests"))).toContain("settings_v1_configmap.yaml");
    await writeFile(join(dir, "bundle/metadata/dependencies.yaml"), "dependencies: []\n");
    await writeFile(
      join(dir, "bundle/manifests/leftover_v1_secret.yaml"),
      "apiVersion: v1\nkind: Secret\nmetadata: {name: leftover}\n",
    );
    const kustomization = join(dir, "config/manifests/kustomization.yaml");
    await writeFile(kustomization, (await readFile(kustomization, "utf8")).replace("- extra.yaml\n", ""));
    const rerun = await run(dir, ["--version", "0.1.0"]);
    expect(rerun.exitCode).toBe(0);
    expect(rerun.stderr).toContain(
      "removed stale bundle/manifests/leftover_v1_secret.yaml (no longer produced)",
    );
    expect(rerun.stderr).toContain(
      "removed stale bundle/manifests/settings_v1_configmap.yaml (no longer produced)",
    );
    expect((await readdir(join(dir, "bundle/manifests"))).sort()).toEqual([
      "demo-operator.clusterserviceversion.yaml",
      "example.com_demos.yaml",
    ]);
    expect(await readFile(join(dir, "bundle/metadata/dependencies.yaml"), "utf8")).toBe("dependencies: []\n");
    expect((await readdir(dir)).filter((f) => f.startsWith(".bundle"))).toEqual([]);
  });

  test("--no-overwrite keeps hand-edited metadata; --output-dir changes the Dockerfile's COPY paths", async () => {
    const dir = await demo();
    expect((await run(dir, ["--version", "0.1.0", "--output-dir", "out/bundle"])).exitCode).toBe(0);
    const dockerfile = await readFile(join(dir, "bundle.Dockerfile"), "utf8");
    expect(dockerfile).toContain(
      "COPY out/bundle/manifests /manifests/\nCOPY out/bundle/metadata /metadata/\n",
    );
    expect(dockerfile).toContain("LABEL operators.operatorframework.io.bundle.package.v1=demo-operator\n");
    const annotations = join(dir, "out/bundle/metadata/annotations.yaml");
    const edited = `${await readFile(annotations, "utf8")}  com.redhat.openshift.versions: v4.14-v4.16\n`;
    await writeFile(annotations, edited);
    expect(
      (await run(dir, ["--version", "0.1.1", "--output-dir", "out/bundle", "--no-overwrite"])).exitCode,
    ).toBe(0);
    expect(await readFile(annotations, "utf8")).toBe(edited);
    expect((await run(dir, ["--version", "0.1.1", "--output-dir", "out/bundle"])).exitCode).toBe(0);
    expect(await readFile(annotations, "utf8")).not.toContain("openshift.versions");
  });

  test("--fbc writes a file-based catalog fragment; -f reads a rendered file", async () => {
    const dir = await copyFixture(MEMCACHED);
    // Metadata files the user keeps in the bundle directory become olm.bundle properties, as opm
    // render makes them (test/bundle/peers.real.test.ts checks against opm itself).
    await mkdir(join(dir, "bundle/metadata"), { recursive: true });
    await writeFile(
      join(dir, "bundle/metadata/dependencies.yaml"),
      "dependencies:\n- type: olm.package\n  value: {packageName: etcd, version: '>=0.9.0'}\n- type: olm.gvk\n  value: {group: etcd.io, kind: Etcd, version: v1}\n",
    );
    await writeFile(
      join(dir, "bundle/metadata/properties.yaml"),
      "properties:\n- type: olm.maxOpenShiftVersion\n  value: '4.15'\n",
    );
    const r = await tsop(dir, [
      "bundle",
      "--skip-generate",
      "--version",
      "0.0.1",
      "--image",
      "quay.io/example/memcached-operator:v0.0.1",
      "--fbc",
      "--channels",
      "stable",
    ]);
    expect(r.exitCode).toBe(0);
    const fbc = (await readFile(join(dir, "catalog/memcached-operator/catalog.yaml"), "utf8"))
      .split(/^---\n/m)
      .filter(Boolean)
      .map((d) => parse(d));
    expect(fbc[0]).toEqual({ schema: "olm.package", name: "memcached-operator", defaultChannel: "stable" });
    expect(fbc[1]).toEqual({
      schema: "olm.channel",
      package: "memcached-operator",
      name: "stable",
      entries: [{ name: "memcached-operator.v0.0.1" }],
    });
    expect(fbc[2]).toMatchObject({
      schema: "olm.bundle",
      name: "memcached-operator.v0.0.1",
      package: "memcached-operator",
      image: "quay.io/example/memcached-operator-bundle:v0.0.1",
      // Sorted by type, then value, as opm render sorts them.
      properties: [
        { type: "olm.gvk", value: { group: "cache.example.com", kind: "Memcached", version: "v1alpha1" } },
        { type: "olm.gvk.required", value: { group: "etcd.io", kind: "Etcd", version: "v1" } },
        { type: "olm.maxOpenShiftVersion", value: "4.15" },
        { type: "olm.package", value: { packageName: "memcached-operator", version: "0.0.1" } },
        { type: "olm.package.required", value: { packageName: "etcd", versionRange: ">=0.9.0" } },
      ],
    });

    // A bundle from a rendered multi-document file (what `kustomize build` prints), base CSV included.
    const read = (p: string) => readFile(join(dir, p), "utf8");
    const stream = [
      await read("config/manifests/bases/memcached-operator.clusterserviceversion.yaml"),
      await read("config/crd/bases/cache.example.com_memcacheds.yaml"),
      await read("config/manager/manager.yaml"),
    ].join("---\n");
    await mkdir(join(dir, "rendered"));
    await writeFile(join(dir, "rendered/all.yaml"), stream);
    const fromFile = await tsop(dir, [
      "bundle",
      "--version",
      "0.0.2",
      "-f",
      "rendered/all.yaml",
      "--output-dir",
      "b2",
    ]);
    expect(fromFile.stderr).toContain("not carried in the bundle: Namespace system (rendered/all.yaml)");
    expect(fromFile.exitCode).toBe(0);
    const csv = await readYaml(join(dir, "b2/manifests/memcached-operator.clusterserviceversion.yaml"));
    expect(csv).toMatchObject({ metadata: { name: "memcached-operator.v0.0.2" } });
  });

  test("--use-image-digests hands every manifest to the pinning seam and writes what it returns", async () => {
    const dir = await demo();
    const seen: string[] = [];
    const result = await bundle(
      {
        cwd: dir,
        skipGenerate: true,
        version: "0.1.0",
        fields: { description: "d", providerName: "p", maintainers: "a <a@example.com>" },
        useImageDigests: true,
        pinImages: async (objects) => {
          for (const o of objects) seen.push(String(o.kind));
          const json = JSON.stringify(objects).replaceAll(
            "example.com/manager:v1",
            `example.com/manager@sha256:${"a".repeat(64)}`,
          );
          return { objects: JSON.parse(json), pinned: [{ from: "example.com/manager:v1", to: "pinned" }] };
        },
      },
      new MemoryReporter(),
    );
    expect(result.csvName).toBe("demo-operator.v0.1.0");
    expect(seen).toEqual(["ClusterServiceVersion", "CustomResourceDefinition"]);
    expect(await readFile(join(dir, CSV_FILE), "utf8")).toContain(
      `image: example.com/manager@sha256:${"a".repeat(64)}`,
    );
  });
});

describe("tsop bundle validate arguments", () => {
  test("a missing directory is an error, not an image pull; an unknown suite is a usage error", async () => {
    const dir = await testdir();
    const missing = await tsop(dir, ["bundle", "validate", "./nope"]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("bundle directory ./nope does not exist");
    const plain = await tsop(dir, ["bundle", "validate"]);
    expect(plain.stderr).toContain("bundle directory bundle does not exist");
    const suite = await tsop(dir, ["bundle", "validate", "x", "--select-optional", "bogus"]);
    expect(suite.exitCode).toBe(2);
    expect(suite.stderr).toContain('--select-optional "bogus" does not match any optional suite');
    const list = await tsop(dir, ["bundle", "validate", "--list-optional"]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/^operatorhub\s+OH-01\s+spec.provider.name is set$/m);
  });
});
