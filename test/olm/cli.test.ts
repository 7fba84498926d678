// The three commands as a user runs them: the built CLI against tsop/testing (workloads mode) +
// the OLM model, with OLM-release-shaped manifests served by a local HTTP server.
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { MemoryReporter } from "../../src/common/reporter.js";
import { loadRelease, olmUninstall } from "../../src/olm/index.js";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { type OlmEnv, startOlmEnv } from "./harness.js";
import { DOWNLOAD_VERSION, FIXTURE_RELEASES, FIXTURE_VERSION } from "./release-server.js";

let env: OlmEnv | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

describe("tsop olm install | status | uninstall", () => {
  it("installs fresh, reports healthy in every format, refuses a second install, uninstalls, reports absent", async () => {
    env = await startOlmEnv();
    const install = await runTsop(["olm", "install", "--version", "0.28.0", ...env.flags]);
    expect(install.stderr).toContain("OLM v0.28.0 installed");
    expect(install.exitCode).toBe(0);
    expect(install.stdout).toMatch(/^NAME\s+NAMESPACE\s+KIND\s+STATUS\n/);
    expect(install.stdout).toMatch(/packageserver\s+olm\s+ClusterServiceVersion\s+Succeeded/);
    expect(install.stdout).toMatch(/olm-operator\s+olm\s+Deployment\s+Available \(1\/1\)/);
    // CRDs were applied and established before the objects that need them.
    const order = install.stderr.indexOf("ClusterServiceVersion olm/packageserver created");
    expect(install.stderr.indexOf("to be established: ready")).toBeGreaterThan(0);
    expect(install.stderr.indexOf("to be established: ready")).toBeLessThan(order);

    const table = await runTsop(["olm", "status", ...env.flags]);
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toContain("OLM v0.28.0: healthy");
    const rows = table.stdout
      .split("\n")
      .slice(1)
      .filter((l) => /\S/.test(l) && !l.startsWith("OLM "));
    const keys = rows.map((r) => r.split(/\s{2,}/));
    // sorted: cluster-scoped first (empty namespace), then by namespace, kind, name
    const sortKey = (cols: string[]) =>
      (cols.length === 4 ? [cols[1], cols[2], cols[0]] : ["", cols[1], cols[0]]).join("\u0000");
    expect(keys.map(sortKey)).toEqual([...keys.map(sortKey)].sort());
    expect(table.stdout).toMatch(/operatorhubio-catalog\s+olm\s+CatalogSource\s+READY/);

    const json = JSON.parse((await runTsop(["olm", "status", "-o", "json", ...env.flags])).stdout);
    expect(json).toMatchObject({ verdict: "healthy", version: "v0.28.0" });
    expect(
      json.rows.find(
        (r: { kind: string; name: string }) => r.kind === "Deployment" && r.name === "packageserver",
      ),
    ).toMatchObject({
      namespace: "olm",
      healthy: true,
    });
    const yaml = parse((await runTsop(["olm", "status", "-o", "yaml", ...env.flags])).stdout);
    expect(yaml).toEqual(json);

    const again = await runTsop(["olm", "install", ...env.flags]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("OLM is already installed (or partly installed); found:");
    expect(again.stderr).toContain("- CustomResourceDefinition catalogsources.operators.coreos.com");
    expect(again.stderr).toContain("- Deployment olm/olm-operator");
    expect(again.stderr).toContain("- ClusterServiceVersion olm/packageserver");
    expect(again.stdout).toBe("");

    const uninstall = await runTsop(["olm", "uninstall", ...env.flags]);
    expect(uninstall.stderr).toContain("OLM v0.28.0 uninstalled");
    expect(uninstall.exitCode).toBe(0);
    // OLM's workloads and CSV go before its CRDs.
    expect(uninstall.stderr.indexOf("deleting ClusterServiceVersion olm/packageserver")).toBeLessThan(
      uninstall.stderr.indexOf("deleting CustomResourceDefinition"),
    );
    expect(uninstall.stderr.indexOf("deleting Deployment olm/olm-operator")).toBeLessThan(
      uninstall.stderr.indexOf("deleting CustomResourceDefinition"),
    );
    expect(env.cluster.get("v1", "Namespace", "olm")).toBeUndefined();
    expect(
      env.cluster.get(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        "subscriptions.operators.coreos.com",
      ),
    ).toBeUndefined();

    const absent = await runTsop(["olm", "status", ...env.flags]);
    expect(absent.exitCode).toBe(1);
    expect(absent.stdout).toBe("OLM is not installed.\n");
    const nothing = await olmUninstall({
      ...env.base,
      timeoutMs: 30_000,
      reporter: new MemoryReporter(),
    }).catch((e) => e);
    expect(nothing.message).toContain("OLM is not installed in this cluster");
  }, 180_000);

  it("installs offline by default (the shipped release), from a directory, and from the cache", async () => {
    env = await startOlmEnv();
    const dir = `${FIXTURE_RELEASES}${FIXTURE_VERSION}`;
    const unreachable = "http://127.0.0.1:9/unreachable";
    const kubeconfig = ["--kubeconfig", env.cluster.kubeconfigPath];
    const uninstall = () =>
      olmUninstall({ ...env!.base, manifests: dir, timeoutMs: 30_000, reporter: new MemoryReporter() });

    const shipped = await runTsop(["olm", "install", ...kubeconfig, "-o", "json"], {
      env: { TSOP_OLM_RELEASES_URL: unreachable },
    });
    expect(shipped.exitCode, shipped.stderr).toBe(0);
    expect(shipped.stderr).toContain("Using OLM v0.28.0 manifests shipped with tsop");
    expect(JSON.parse(shipped.stdout)).toMatchObject({
      version: "v0.28.0",
      verdict: "healthy",
      source: { origin: "shipped" },
    });
    // Status reads the shipped manifests too: no download, no warning.
    const status = await runTsop(["olm", "status", ...kubeconfig], {
      env: { TSOP_OLM_RELEASES_URL: unreachable },
    });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stderr).not.toMatch(/download|cannot load|warn|⚠/i);
    await uninstall();

    const fromDir = await runTsop(["olm", "install", "--manifests", dir, ...kubeconfig, "-o", "json"], {
      env: { TSOP_OLM_RELEASES_URL: unreachable },
    });
    expect(fromDir.exitCode).toBe(0);
    expect(JSON.parse(fromDir.stdout)).toMatchObject({
      version: "v0.28.0",
      verdict: "healthy",
      source: { origin: "directory", location: dir },
    });
    await uninstall();

    // Another version: a cache filled by an earlier download serves the install with the release server unreachable.
    const cacheDir = await testdir();
    await loadRelease({
      version: DOWNLOAD_VERSION,
      baseUrl: env.releases.baseUrl,
      cacheDir,
      env: {},
      reporter: new MemoryReporter(),
    });
    const offline = await runTsop([
      "olm",
      "install",
      "--version",
      DOWNLOAD_VERSION,
      "--base-url",
      unreachable,
      "--cache-dir",
      cacheDir,
      ...kubeconfig,
      "-o",
      "json",
    ]);
    expect(offline.stderr).toContain(`Using cached OLM ${DOWNLOAD_VERSION} manifests`);
    expect(offline.exitCode).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({
      version: DOWNLOAD_VERSION,
      verdict: "healthy",
      source: { origin: "cache" },
    });
  }, 180_000);
});
