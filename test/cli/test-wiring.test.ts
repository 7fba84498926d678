// `tsop test upgrades` wiring: argv → the options testUpgrades receives (only testUpgrades is
// mocked; commander, the flag parsers, the readiness parsers and the report run), the report or
// -o json on stdout, and exit code 1 when an edge failed.
import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseInProcess } from "../support/wiring.js";
import { CATALOG_INIT_IMAGE, OPM_IMAGE } from "../../src/common/pins.js";

const calls = vi.hoisted(() => [] as Array<Record<string, unknown>>);
const outcome = vi.hoisted(() => ({ ok: true }));

vi.mock("../../src/upgrades/index.js", async (original) => ({
  ...(await original<typeof import("../../src/upgrades/index.js")>()),
  testUpgrades: async (options: Record<string, unknown>) => {
    calls.push(options);
    const edge = {
      edge: "p: p.v1 → p.v2",
      package: "p",
      from: { bundle: "p.v1", version: "1.0.0", image: "q.io/p:v1" },
      to: { bundle: "p.v2", version: "2.0.0", image: "q.io/p:v2" },
      channels: ["alpha"],
      kinds: ["replaces"],
      ok: outcome.ok,
      steps: [
        { step: "install", ms: 1500, ok: true },
        { step: "check", ms: 200, ok: outcome.ok },
      ],
      failures: outcome.ok
        ? []
        : [
            {
              step: "check",
              sample: "Memcached m",
              field: ".spec.size",
              message: "field .spec.size (set to 3) is gone",
            },
          ],
    };
    return { namespace: "ns", catalog: "c", ok: outcome.ok, edges: [edge] };
  },
}));

const { buildProgram } = await import("../../src/cli/main.js");
const parse = (argv: string[]) => parseInProcess(buildProgram({ versionFlag: false }), argv);

beforeEach(() => {
  calls.length = 0;
  outcome.ok = true;
});
afterEach(() => {
  process.exitCode = undefined;
});

function onlyCall(): Record<string, unknown> {
  expect(calls).toHaveLength(1);
  const { reporter, signal, env: _env, interactive: _i, ...options } = calls[0]!;
  expect(reporter).toBeDefined();
  expect(signal).toBeInstanceOf(AbortSignal);
  return options;
}

const DEFAULTS = {
  kubeconfig: undefined,
  context: undefined,
  namespace: undefined,
  catalog: resolve("catalog/template.yaml"),
  samplesDir: resolve("config/samples"),
  filter: { channel: undefined, from: undefined, to: undefined },
  readiness: { kind: "condition", types: ["Available", "Ready"] },
  timeoutMs: 600_000,
  installMode: undefined,
  indexImage: OPM_IMAGE,
  initImage: CATALOG_INIT_IMAGE,
  pullSecretName: undefined,
  serviceAccount: undefined,
  securityContext: "restricted",
  csvFailedGraceMs: 60_000,
};

describe("tsop test upgrades wiring", () => {
  it("defaults: catalog/template.yaml, config/samples, Available or Ready", async () => {
    await parse(["test", "upgrades"]);
    expect(onlyCall()).toEqual(DEFAULTS);
  });

  it("every flag reaches its option", async () => {
    await parse([
      "test",
      "upgrades",
      "configs",
      "--channel=alpha",
      "--from=0.0.1",
      "--to=p.v2",
      "--fixtures=fx",
      "--ready-condition",
      "Synced",
      "Healthy",
      "--timeout=2m",
      "--install-mode=OwnNamespace",
      "--index-image=q.io/opm:2",
      "--init-image=q.io/init:2",
      "--pull-secret-name=pull",
      "--service-account=sa",
      "--security-context-config=legacy",
      "--csv-failed-grace=30s",
      "--plain-http=r:5000",
      "--kubeconfig=k.yaml",
      "--context=dev",
      "-n",
      "ns",
    ]);
    expect(onlyCall()).toEqual({
      ...DEFAULTS,
      kubeconfig: "k.yaml",
      context: "dev",
      namespace: "ns",
      catalog: resolve("configs"),
      samplesDir: resolve("fx"),
      filter: { channel: "alpha", from: "0.0.1", to: "p.v2" },
      readiness: { kind: "condition", types: ["Synced", "Healthy"] },
      timeoutMs: 120_000,
      installMode: "OwnNamespace",
      indexImage: "q.io/opm:2",
      initImage: "q.io/init:2",
      pullSecretName: "pull",
      serviceAccount: "sa",
      securityContext: "legacy",
      csvFailedGraceMs: 30_000,
      plainHttp: ["r:5000"],
    });
  });

  it("--ready-jsonpath becomes a jsonpath readiness; with --ready-condition, or malformed, a usage error", async () => {
    await parse(["test", "upgrades", "--ready-jsonpath", "{.status.phase}=Running"]);
    expect(onlyCall().readiness).toEqual({
      kind: "jsonpath",
      text: "{.status.phase}=Running",
      steps: ["status", "phase"],
      expected: "Running",
    });
    calls.length = 0;
    await expect(
      parse(["test", "upgrades", "--ready-jsonpath", "{.a}", "--ready-condition", "X"]),
    ).rejects.toThrow(/exclude each other/);
    await expect(parse(["test", "upgrades", "--ready-jsonpath", "status"])).rejects.toThrow(
      /is not a jsonpath/,
    );
    await expect(parse(["test", "upgrades", "--install-mode", "Sideways"])).rejects.toThrow(/install mode/i);
    expect(calls).toHaveLength(0);
  });

  it("prints a table per edge with step times; a failure names edge, sample and field and exits 1", async () => {
    const passed = await parse(["test", "upgrades"]);
    expect(passed).toBe(
      [
        "PASS  p: p.v1 → p.v2  (replaces; channel alpha)",
        "  STEP      TIME   RESULT",
        "  install   1.5s   ok",
        "  check     0.2s   ok",
        "  total 1.7s",
        "",
        "1 of 1 edge(s) passed",
        "",
      ].join("\n"),
    );
    expect(process.exitCode).toBeUndefined();
    outcome.ok = false;
    const failed = await parse(["test", "upgrades"]);
    expect(failed).toContain("FAIL  p: p.v1 → p.v2");
    expect(failed).toContain(
      "  edge p: p.v1 → p.v2, sample Memcached m, field .spec.size: field .spec.size (set to 3) is gone\n",
    );
    expect(failed).toContain("0 of 1 edge(s) passed");
    expect(process.exitCode).toBe(1);
  });

  it("-o json prints the result object", async () => {
    outcome.ok = false;
    const json = JSON.parse(await parse(["test", "upgrades", "-o", "json"])) as {
      ok: boolean;
      edges: unknown[];
    };
    expect(json.ok).toBe(false);
    expect(json.edges).toHaveLength(1);
    expect(process.exitCode).toBe(1);
  });
});
