// operator-sdk's spellings: flags with the same meaning are aliases (--use-http, --skip-tls,
// `cleanup --delete-all`, `run bundle --plain-http=<host>`), checked on the options the domain
// receives (domain mocked); commands are translated (`generate bundle` runs `tsop bundle`) or
// answered with the tsop way (`scorecard`, `generate kustomize manifests`, `--plugins`) by the built
// CLI; `bundle --overwrite[=false]` keeps operator-sdk's meaning.
import type { Command } from "commander";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { testdir } from "../support/testdir.js";
import { BASE_FLAGS, CRD, DEPLOYMENT, miniProject, tsop } from "../bundle/helpers.js";

const calls: Array<Record<string, unknown>> = [];
vi.mock("../../src/olm/run/index.js", () => ({
  runBundle: vi.fn(async (options: Record<string, unknown>) => {
    calls.push(options);
    return { dryRun: true, objects: [] };
  }),
  bundleUpgrade: vi.fn(async (options: Record<string, unknown>) => {
    calls.push(options);
    return { packageName: "p", from: { csv: "a" }, to: { csv: "b" }, namespace: "n" };
  }),
  cleanup: vi.fn(async (options: Record<string, unknown>) => {
    calls.push(options);
    return { namespace: "n", packageName: "p", dryRun: true, items: [] };
  }),
}));

// No cluster here: which OLM a command talks to is v0 unless --olm says otherwise.
vi.mock("../../src/olm/run/v1/index.js", () => ({
  chooseOlm: async (options: { olm?: string }) => options.olm ?? "v0",
}));

const { runCommand } = await import("../../src/cli/run.js");
const { cleanupCommand } = await import("../../src/cli/cleanup.js");

beforeEach(() => {
  calls.length = 0;
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function parse(command: Command, args: string[]): Promise<Record<string, unknown>> {
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const c of all(command)) c.exitOverride().configureOutput({ writeErr: () => {} });
  await command.parseAsync(args, { from: "user" });
  return calls.at(-1) ?? {};
}

describe("operator-sdk flag aliases", () => {
  it.each([
    [["bundle", "img:v1", "--use-http", "--dry-run"], { plainHttp: true }],
    [["bundle", "img:v1", "--skip-tls", "--dry-run"], { skipTlsVerify: true }],
    [
      ["bundle", "img:v1", "--plain-http=localhost:5000,reg:80", "--dry-run"],
      { plainHttp: ["localhost:5000", "reg:80"] },
    ],
    [["bundle", "img:v1", "--plain-http", "--dry-run"], { plainHttp: true }],
    [["bundle-upgrade", "img:v2", "--use-http", "--skip-tls"], { plainHttp: true, skipTlsVerify: true }],
  ])("run %j", async (args, expected) => {
    expect(await parse(runCommand(), args)).toMatchObject(expected);
  });

  it("cleanup --delete-all is --delete-crds", async () => {
    expect(await parse(cleanupCommand(), ["p", "--delete-all", "--dry-run"])).toMatchObject({
      deleteCrds: true,
    });
    expect(await parse(cleanupCommand(), ["p", "--dry-run"])).toMatchObject({ deleteCrds: undefined });
  });
});

describe("operator-sdk command names (built CLI)", () => {
  it("generate bundle runs tsop bundle, saying so", async () => {
    const project = miniProject({
      "crd.yaml": CRD,
      "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa"),
    });
    const [a, b] = [await testdir(project), await testdir(project)];
    const flags = ["--skip-generate", "--version", "0.0.1", ...BASE_FLAGS];
    const env = { SOURCE_DATE_EPOCH: "1667928397" };
    const viaSdkName = await tsop(a, ["generate", "bundle", ...flags], env);
    expect(viaSdkName.exitCode, viaSdkName.stderr).toBe(0);
    expect(viaSdkName.stderr).toContain("note: operator-sdk's `generate bundle` is `tsop bundle` in tsop");
    expect((await tsop(b, ["bundle", ...flags], env)).exitCode).toBe(0);
    const csv = "bundle/manifests/demo-operator.clusterserviceversion.yaml";
    expect(await readFile(join(a, csv), "utf8")).toBe(await readFile(join(b, csv), "utf8"));
  });

  it("bundle --overwrite and --overwrite=false mean what they mean to operator-sdk", async () => {
    const dir = await testdir(
      miniProject({
        "crd.yaml": CRD,
        "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa"),
      }),
    );
    const flags = ["--skip-generate", "--version", "0.0.1", ...BASE_FLAGS];
    expect((await tsop(dir, ["bundle", ...flags])).exitCode).toBe(0);
    const annotations = join(dir, "bundle/metadata/annotations.yaml");
    const written = await readFile(annotations, "utf8");
    await writeFile(annotations, `${written}# kept by hand\n`);
    const kept = await tsop(dir, ["bundle", ...flags, "--overwrite=false"]);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(await readFile(annotations, "utf8")).toBe(`${written}# kept by hand\n`);
    const overwritten = await tsop(dir, ["bundle", ...flags, "--overwrite"]);
    expect(overwritten.exitCode, overwritten.stderr).toBe(0);
    expect(await readFile(annotations, "utf8")).toBe(written);
    const bad = await tsop(dir, ["bundle", ...flags, "--overwrite=maybe"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"maybe" is not true or false');
  });

  it.each([
    [["init", "--plugins", "go/v4", "--domain", "example.com"], "tsop has no --plugins", "drop --plugins"],
    [
      ["create", "api", "--plugins=go/v4", "--group", "cache", "--version", "v1", "--kind", "Memcached"],
      "tsop has no --plugins",
      "drop --plugins",
    ],
    [["init", "--project-version", "3"], "tsop has no --project-version", "drop --project-version"],
    [
      ["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached", "--make=false"],
      "tsop has no --make",
      "drop --make",
    ],
    [["scorecard", "bundle"], "tsop has no scorecard", "operator-sdk scorecard ./bundle"],
    [
      ["generate", "kustomize", "manifests"],
      "tsop has no `generate kustomize manifests`",
      "tsop bundle --version",
    ],
  ])("%j says the tsop way", async (args, message, hint) => {
    const r = await tsop(await testdir(), args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stderr).toContain(hint);
  });
});
