// `tsop olm …` flags → the options object the domain functions receive (domain mocked: the only
// place this suite mocks modules), and how results are rendered.
import type { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const calls: Array<{ fn: string; options: Record<string, unknown> }> = [];
const rows = [
  { name: "olm-operator", namespace: "olm", kind: "Deployment", status: "Available (1/1)", healthy: true },
];
vi.mock("../../src/olm/index.js", () => ({
  olmInstall: vi.fn(async (options: Record<string, unknown>) => {
    calls.push({ fn: "install", options });
    return {
      version: "v0.28.0",
      verdict: "healthy",
      rows,
      applied: [],
      source: { origin: "cache", location: "/c" },
    };
  }),
  olmStatus: vi.fn(async (options: Record<string, unknown>) => {
    calls.push({ fn: "status", options });
    return {
      version: "v0.28.0",
      verdict: "degraded",
      rows: [{ ...rows[0], status: "Unavailable: 0/1", healthy: false }],
    };
  }),
  olmUninstall: vi.fn(async (options: Record<string, unknown>) => {
    calls.push({ fn: "uninstall", options });
    return {
      version: "v0.28.0",
      deleted: [{ name: "olm", namespace: "", kind: "Namespace" }],
      removedOperators: [],
    };
  }),
}));

vi.mock("../../src/olm/v1/index.js", () => ({
  olmInstallV1: vi.fn(async (options: Record<string, unknown>) => {
    calls.push({ fn: "installV1", options });
    return { version: "v1 (x)", verdict: "healthy", rows: [], applied: [], components: {} };
  }),
  olmStatusV1: vi.fn(async (options: Record<string, unknown>) => {
    calls.push({ fn: "statusV1", options });
    return { verdict: "absent", rows: [] };
  }),
  olmUninstallV1: vi.fn(async (options: Record<string, unknown>) => {
    calls.push({ fn: "uninstallV1", options });
    return { deleted: [], removedOperators: [] };
  }),
}));

const { olmCommand } = await import("../../src/cli/olm.js");

let stdout = "";
beforeEach(() => {
  calls.length = 0;
  stdout = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  process.exitCode = undefined;
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

async function run(args: string[]): Promise<Record<string, unknown>> {
  const command = olmCommand();
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const c of all(command)) c.exitOverride().configureOutput({ writeErr: () => {} });
  await command.parseAsync(args, { from: "user" });
  return calls.at(-1)?.options ?? {};
}

describe("olm wiring", () => {
  it.each([
    [["install"], { version: "v0.28.0", timeoutMs: 300_000, force: undefined, manifests: undefined }],
    [
      [
        "install",
        "--version",
        "latest",
        "--manifests",
        "./m",
        "--base-url",
        "http://mirror/releases",
        "--cache-dir",
        "/c",
        "--force",
        "--timeout",
        "90s",
        "--kubeconfig",
        "k.yaml",
        "--context",
        "dev",
      ],
      {
        version: "latest",
        manifests: "./m",
        baseUrl: "http://mirror/releases",
        cacheDir: "/c",
        force: true,
        timeoutMs: 90_000,
        kubeconfig: "k.yaml",
        context: "dev",
      },
    ],
    [["status"], { version: undefined, timeoutMs: 120_000 }],
    [["status", "--version", "0.28.0", "-o", "json"], { version: "0.28.0" }],
    [["uninstall", "--force", "--timeout", "1m"], { force: true, timeoutMs: 60_000, version: undefined }],
  ])("%j", async (args, expected) => {
    expect(await run(args)).toMatchObject(expected);
  });

  it("renders the table, JSON, and a status verdict with exit code 1 when not healthy", async () => {
    await run(["install"]);
    expect(stdout).toBe(
      "NAME           NAMESPACE   KIND         STATUS\nolm-operator   olm         Deployment   Available (1/1)\n",
    );
    stdout = "";
    await run(["status", "-o", "json"]);
    expect(JSON.parse(stdout)).toMatchObject({ verdict: "degraded" });
    expect(process.exitCode).toBe(1);
    stdout = "";
    await run(["status"]);
    expect(stdout).toContain("OLM v0.28.0: degraded (1 of 1 objects not healthy)");
    stdout = "";
    await run(["uninstall"]);
    expect(stdout).toMatch(/^NAME\s+NAMESPACE\s+KIND\s+STATUS\nolm\s+Namespace\s+Deleted\n$/);
  });

  it("--v1 calls the OLM v1 functions with the same cluster, timeout and --force options", async () => {
    expect(
      await run(["install", "--v1", "--force", "--timeout", "90s", "--kubeconfig", "k.yaml"]),
    ).toMatchObject({
      force: true,
      timeoutMs: 90_000,
      kubeconfig: "k.yaml",
    });
    expect(calls.at(-1)?.fn).toBe("installV1");
    await run(["uninstall", "--v1", "--force"]);
    expect(calls.at(-1)).toMatchObject({ fn: "uninstallV1", options: { force: true } });
    stdout = "";
    await run(["status", "--v1"]);
    expect(calls.at(-1)?.fn).toBe("statusV1");
    expect(stdout).toBe("OLM v1 is not installed.\n");
    expect(process.exitCode).toBe(1);
  });

  it.each([["install"], ["status"], ["uninstall"]])(
    "%s --v1 refuses the release flags of OLM v0",
    async (verb) => {
      for (const flag of [
        ["--version", "v1.2.0"],
        ["--manifests", "./m"],
        ["--base-url", "http://x"],
        ["--cache-dir", "/c"],
      ])
        await expect(run([verb, "--v1", ...flag])).rejects.toThrow(`${flag[0]} does not apply with --v1`);
      expect(calls).toHaveLength(0);
    },
  );

  it("rejects a bad duration and an unknown output format before calling anything", async () => {
    await expect(run(["install", "--timeout", "soon"])).rejects.toThrow(/"soon" is not a duration/);
    await expect(run(["status", "-o", "wide"])).rejects.toThrow(/Allowed choices are table, json, yaml/);
    expect(calls).toHaveLength(0);
  });
});
