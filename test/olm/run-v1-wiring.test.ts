// `--olm v1` wiring: argv → which path runs (explicit --olm wins; else what the cluster serves,
// asked through chooseOlm) and the options the v1 domain functions receive; OLM v0's knobs refused
// with --olm v1. The domain (src/olm/run and src/olm/run/v1) is mocked; commander, the flag
// parsers, the image reference checks and withInterrupt run.
import { resolve } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseInProcess } from "../support/wiring.js";

const calls = vi.hoisted(() => [] as Array<{ fn: string; options: Record<string, unknown> }>);
/** What the mocked cluster serves when --olm is not given. */
const served = vi.hoisted(() => ({ olm: "v0" as "v0" | "v1" }));

vi.mock("../../src/olm/run/index.js", () => ({
  runBundle: async (options: Record<string, unknown>) => {
    calls.push({ fn: "runBundle", options });
    return { dryRun: false, objects: [], csv: "p.v1", namespace: "ns" };
  },
  bundleUpgrade: async (options: Record<string, unknown>) => {
    calls.push({ fn: "bundleUpgrade", options });
    return { dryRun: false, objects: [], packageName: "p", from: { csv: "a" }, to: { csv: "b" } };
  },
  cleanup: async (options: Record<string, unknown>) => {
    calls.push({ fn: "cleanup", options });
    return { namespace: "n", packageName: "p", dryRun: false, items: [] };
  },
}));

vi.mock("../../src/olm/run/v1/index.js", () => ({
  chooseOlm: async (options: { olm?: string }) => {
    calls.push({ fn: "chooseOlm", options });
    return options.olm ?? served.olm;
  },
  runBundleV1: async (options: Record<string, unknown>) => {
    calls.push({ fn: "runBundleV1", options });
    const done = { csv: "p.v1", namespace: "ns", clusterExtension: "p", clusterCatalog: "p-catalog" };
    return {
      olm: "v1",
      dryRun: Boolean(options.dryRun),
      objects: [{ kind: "ClusterExtension" }],
      catalogImage: "r/c@sha256:1",
      ...done,
    };
  },
  bundleUpgradeV1: async (options: Record<string, unknown>) => {
    calls.push({ fn: "bundleUpgradeV1", options });
    return {
      olm: "v1",
      dryRun: false,
      objects: [],
      packageName: "p",
      from: { csv: "p.v1" },
      to: { csv: "p.v2" },
      catalogImage: "r/c@sha256:2",
    };
  },
  cleanupV1: async (options: Record<string, unknown>) => {
    calls.push({ fn: "cleanupV1", options });
    return {
      olm: "v1",
      packageName: "p",
      dryRun: false,
      items: [{ kind: "ClusterExtension", name: "p", action: "deleted" }],
    };
  },
}));

const { buildProgram } = await import("../../src/cli/main.js");
const parse = (argv: string[]) => parseInProcess(buildProgram({ versionFlag: false }), argv);

beforeEach(() => {
  calls.length = 0;
  served.olm = "v0";
});

/** The names of the domain calls, in order. */
const called = () => calls.map((c) => c.fn);

function optionsOf(fn: string): Record<string, unknown> {
  const { reporter, signal, env, ...options } = calls.find((c) => c.fn === fn)!.options;
  expect(reporter).toBeDefined();
  expect(env).toBe(process.env);
  void signal;
  return options;
}

describe("run bundle --olm", () => {
  it("--olm v1 runs the v1 path with its flags", async () => {
    const out = await parse([
      "run",
      "bundle",
      "q.io/p-bundle:v1",
      "--olm",
      "v1",
      "--catalog-image",
      "q.io/p-catalog:dev",
      "--ca-file",
      "ca.pem",
      "--create-namespace",
      "-n",
      "ns",
      "--timeout",
      "2m",
      "--keep-on-failure",
    ]);
    // chooseOlm answers an explicit --olm without asking the cluster (src/olm/run/v1/detect.ts).
    expect(called()).toEqual(["chooseOlm", "runBundleV1"]);
    expect(calls[0]!.options.olm).toBe("v1");
    expect(optionsOf("runBundleV1")).toEqual({
      image: "q.io/p-bundle:v1",
      kubeconfig: undefined,
      context: undefined,
      namespace: "ns",
      interactive: false,
      timeoutMs: 120_000,
      caFile: resolve(process.cwd(), "ca.pem"),
      catalogImage: "q.io/p-catalog:dev",
      createNamespace: true,
      dryRun: undefined,
      keepOnFailure: true,
    });
    expect(out).toBe(
      "p.v1 installed in namespace ns by OLM v1 (ClusterExtension p, ClusterCatalog p-catalog, catalog image r/c@sha256:1)\n",
    );
  });

  it("without --olm, the cluster decides: v1 when chooseOlm says so, v0 otherwise", async () => {
    served.olm = "v1";
    await parse(["run", "bundle", "q.io/p-bundle:v1"]);
    expect(called()).toEqual(["chooseOlm", "runBundleV1"]);
    calls.length = 0;
    served.olm = "v0";
    await parse(["run", "bundle", "q.io/p-bundle:v1"]);
    expect(called()).toEqual(["chooseOlm", "runBundle"]);
  });

  it("--olm v0 never asks the cluster which OLM it has", async () => {
    served.olm = "v1";
    await parse(["run", "bundle", "q.io/p-bundle:v1", "--olm", "v0"]);
    expect(called()).toEqual(["runBundle"]);
  });

  it("refuses OLM v0's knobs with --olm v1, before anything runs", async () => {
    await expect(
      parse(["run", "bundle", "q.io/p-bundle:v1", "--olm", "v1", "--install-mode", "OwnNamespace"]),
    ).rejects.toThrow("--install-mode apply to OLM v0 only, not with --olm v1");
    expect(called()).toEqual(["chooseOlm"]);
  });

  it("refuses an unknown --olm and a malformed --catalog-image", async () => {
    await expect(parse(["run", "bundle", "q.io/p-bundle:v1", "--olm", "v2"])).rejects.toThrow(/v0, v1/);
    await expect(
      parse(["run", "bundle", "q.io/p-bundle:v1", "--olm", "v1", "--catalog-image", "Bad Ref"]),
    ).rejects.toThrow(/--catalog-image/);
    expect(called()).toEqual([]);
  });

  it("refuses --catalog-image on OLM v0", async () => {
    await expect(
      parse(["run", "bundle", "q.io/p-bundle:v1", "--olm", "v0", "--catalog-image", "q.io/c:1"]),
    ).rejects.toThrow("--catalog-image applies to OLM v1 only");
    expect(called()).toEqual([]);
  });

  it("--dry-run -o json prints the v1 plan's objects as a List", async () => {
    const out = await parse(["run", "bundle", "q.io/p-bundle:v1", "--olm", "v1", "--dry-run", "-o", "json"]);
    expect(JSON.parse(out)).toEqual({
      apiVersion: "v1",
      kind: "List",
      items: [{ kind: "ClusterExtension" }],
    });
  });
});

describe("run bundle-upgrade --olm v1", () => {
  it("passes the image, --catalog-image and --rollback-on-failure", async () => {
    const out = await parse([
      "run",
      "bundle-upgrade",
      "q.io/p-bundle:v2",
      "--olm",
      "v1",
      "--catalog-image",
      "q.io/c:2",
      "--rollback-on-failure",
    ]);
    expect(called()).toEqual(["chooseOlm", "bundleUpgradeV1"]);
    expect(optionsOf("bundleUpgradeV1")).toMatchObject({
      image: "q.io/p-bundle:v2",
      catalogImage: "q.io/c:2",
      rollbackOnFailure: true,
      timeoutMs: 600_000,
    });
    expect(out).toBe("p upgraded from p.v1 to p.v2 by OLM v1 (catalog image r/c@sha256:2)\n");
  });
});

describe("cleanup --olm v1", () => {
  it("runs the v1 cleanup and prints what it deleted", async () => {
    const out = await parse(["cleanup", "p", "--olm", "v1", "--timeout", "1m"]);
    expect(called()).toEqual(["chooseOlm", "cleanupV1"]);
    expect(optionsOf("cleanupV1")).toMatchObject({ packageName: "p", timeoutMs: 60_000, dryRun: undefined });
    expect(out).toContain("ClusterExtension");
  });

  it("refuses --delete-crds with OLM v1 (it removes the CRDs with the ClusterExtension)", async () => {
    await expect(parse(["cleanup", "p", "--olm", "v1", "--delete-crds"])).rejects.toThrow(/OLM v0 only/);
    expect(called()).toEqual(["chooseOlm"]);
  });
});
