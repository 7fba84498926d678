// `tsop run bundle` and `tsop run bundle-upgrade` wiring: argv → the options object the domain
// functions receive (src/olm/run is mocked here and only here; commander, the flag parsers, the
// image reference checks and withInterrupt run).
import { resolve } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseInProcess } from "../support/wiring.js";
import { CATALOG_INIT_IMAGE, OPM_IMAGE } from "../../src/common/pins.js";

const calls = vi.hoisted(() => [] as Array<{ fn: string; options: Record<string, unknown> }>);

vi.mock("../../src/olm/run/index.js", () => ({
  runBundle: async (options: Record<string, unknown>) => {
    calls.push({ fn: "runBundle", options });
    const done = {
      csv: "p.v1",
      namespace: "ns",
      catalogSource: "cs",
      subscription: "sub",
      installPlan: "ip",
    };
    return { dryRun: Boolean(options.dryRun), objects: [{ kind: "CatalogSource" }], ...done };
  },
  bundleUpgrade: async (options: Record<string, unknown>) => {
    calls.push({ fn: "bundleUpgrade", options });
    const done = { packageName: "p", from: { csv: "p.v1" }, to: { csv: "p.v2" }, namespace: "ns" };
    return { dryRun: Boolean(options.dryRun), objects: [{ kind: "Subscription" }], ...done };
  },
}));

// No cluster here: which OLM a command talks to is v0 unless --olm says otherwise
// (test/olm/run-v1-wiring.test.ts covers --olm v1).
vi.mock("../../src/olm/run/v1/index.js", () => ({
  chooseOlm: async (options: { olm?: string }) => options.olm ?? "v0",
}));

const { buildProgram } = await import("../../src/cli/main.js");

/** `tsop <argv>` in-process; returns stdout. */
const parse = (argv: string[]) => parseInProcess(buildProgram({ versionFlag: false }), argv);

/** Every run flag's value when none is given. */
const SHARED_DEFAULTS = {
  image: "q.io/p-bundle:v1",
  kubeconfig: undefined,
  context: undefined,
  namespace: undefined,
  env: process.env,
  interactive: false,
  timeoutMs: 600_000,
  pullSecretName: undefined,
  serviceAccount: undefined,
  initImage: CATALOG_INIT_IMAGE,
  securityContext: "restricted",
  csvFailedGraceMs: 60_000,
};

/** The flags both commands share, and what they become. */
const SHARED_FLAGS = [
  "--kubeconfig=k.yaml",
  "--context=dev",
  "-n",
  "ns",
  "--timeout=2m",
  "--pull-secret-name=pull",
  "--service-account=sa",
  "--init-image=q.io/init:1",
  "--security-context-config=legacy",
  "--csv-failed-grace=30s",
  "--registry-config=auth.json",
];
const SHARED_VALUES = {
  kubeconfig: "k.yaml",
  context: "dev",
  namespace: "ns",
  timeoutMs: 120_000,
  pullSecretName: "pull",
  serviceAccount: "sa",
  initImage: "q.io/init:1",
  securityContext: "legacy",
  csvFailedGraceMs: 30_000,
  registryConfig: resolve(process.cwd(), "auth.json"),
};

beforeEach(() => {
  calls.length = 0;
});

/** The options of the one domain call, without the reporter and the abort signal (checked once). */
function onlyCall(fn: string): Record<string, unknown> {
  expect(calls.map((c) => c.fn)).toEqual([fn]);
  const { reporter, signal, ...options } = calls[0]!.options;
  expect(reporter).toBeDefined();
  expect(signal).toBeInstanceOf(AbortSignal);
  return options;
}

describe("tsop run bundle wiring", () => {
  it.each([
    [[], { indexImage: OPM_IMAGE }],
    [
      [
        ...SHARED_FLAGS,
        "--install-mode=SingleNamespace=team",
        "--index-image=q.io/opm:2",
        "--skip-tls-verify",
        "--plain-http=r:5000, s",
      ],
      {
        ...SHARED_VALUES,
        installMode: "SingleNamespace=team",
        indexImage: "q.io/opm:2",
        skipTlsVerify: true,
        plainHttp: ["r:5000", "s"],
      },
    ],
    // Each switch on its own, so two swapped switches cannot pass.
    [["--create-namespace"], { indexImage: OPM_IMAGE, createNamespace: true }],
    [["--dry-run"], { indexImage: OPM_IMAGE, dryRun: true }],
    [["--keep-on-failure"], { indexImage: OPM_IMAGE, keepOnFailure: true }],
    [["--skip-tls-verify"], { indexImage: OPM_IMAGE, skipTlsVerify: true }],
    // operator-sdk's names for --skip-tls-verify and --plain-http.
    [["--skip-tls", "--use-http"], { indexImage: OPM_IMAGE, skipTlsVerify: true, plainHttp: true }],
    [["--plain-http"], { indexImage: OPM_IMAGE, plainHttp: true }],
  ])("%j", async (flags, expected) => {
    await parse(["run", "bundle", "q.io/p-bundle:v1", ...flags]);
    expect(onlyCall("runBundle")).toEqual({ ...SHARED_DEFAULTS, ...expected });
  });

  it("prints --dry-run's objects as YAML documents, or a v1 List with -o json", async () => {
    expect(await parse(["run", "bundle", "q.io/p-bundle:v1", "--dry-run"])).toBe(
      "---\nkind: CatalogSource\n",
    );
    const json = await parse(["run", "bundle", "q.io/p-bundle:v1", "--dry-run", "-o", "json"]);
    expect(JSON.parse(json)).toEqual({ apiVersion: "v1", kind: "List", items: [{ kind: "CatalogSource" }] });
  });

  it("prints what was installed as a line, or as data without the objects", async () => {
    expect(await parse(["run", "bundle", "q.io/p-bundle:v1"])).toBe(
      "p.v1 installed in namespace ns (CatalogSource cs, Subscription sub, InstallPlan ip)\n",
    );
    const json = await parse(["run", "bundle", "q.io/p-bundle:v1", "-o", "json"]);
    expect(JSON.parse(json)).toEqual({
      dryRun: false,
      csv: "p.v1",
      namespace: "ns",
      catalogSource: "cs",
      subscription: "sub",
      installPlan: "ip",
    });
  });

  it("refuses a bad image reference, duration or choice before calling anything", async () => {
    await expect(parse(["run", "bundle", "Q.IO/Bad"])).rejects.toThrow(/<bundle-image>/);
    await expect(parse(["run", "bundle", "q.io/b:1", "--index-image", "bad ref"])).rejects.toThrow(
      /--index-image/,
    );
    await expect(parse(["run", "bundle", "q.io/b:1", "--timeout", "soon"])).rejects.toThrow(
      /"soon" is not a duration/,
    );
    await expect(
      parse(["run", "bundle", "q.io/b:1", "--security-context-config", "privileged"]),
    ).rejects.toThrow(/Allowed choices are restricted, legacy/);
    expect(calls).toHaveLength(0);
  });
});

describe("tsop run bundle-upgrade wiring", () => {
  it.each([
    [[], {}],
    [
      [...SHARED_FLAGS, "--skip-tls", "--plain-http=r:5000"],
      { ...SHARED_VALUES, skipTlsVerify: true, plainHttp: ["r:5000"] },
    ],
    [["--rollback-on-failure"], { rollbackOnFailure: true }],
    [["--dry-run"], { dryRun: true }],
    [["--use-http"], { plainHttp: true }],
  ])("%j", async (flags, expected) => {
    await parse(["run", "bundle-upgrade", "q.io/p-bundle:v1", ...flags]);
    expect(onlyCall("bundleUpgrade")).toEqual({ ...SHARED_DEFAULTS, ...expected });
  });

  it("prints the upgrade as a line, as YAML data, or --dry-run's objects", async () => {
    const image = "q.io/p-bundle:v2";
    expect(await parse(["run", "bundle-upgrade", image])).toBe(
      "p upgraded from p.v1 to p.v2 in namespace ns\n",
    );
    const yaml = await parse(["run", "bundle-upgrade", image, "-o", "yaml"]);
    expect(yaml).toContain("packageName: p\n");
    expect(yaml).not.toContain("Subscription");
    expect(await parse(["run", "bundle-upgrade", image, "--dry-run"])).toBe("---\nkind: Subscription\n");
  });
});
