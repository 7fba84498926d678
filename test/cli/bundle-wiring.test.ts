// `tsop bundle` and `tsop bundle push` wiring: argv → the options object the domain functions
// receive (the domain modules are mocked here and only here; commander and the flag parsers run).
import { resolve } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseInProcess } from "../support/wiring.js";

const calls = vi.hoisted(() => ({
  bundle: [] as Array<Record<string, unknown>>,
  push: [] as Array<{ image: string; options: Record<string, unknown> }>,
}));
const prompter = vi.hoisted(() => ({ input: async () => "" }));

vi.mock("../../src/bundle/index.js", () => ({
  bundle: async (options: Record<string, unknown>) => {
    calls.bundle.push(options);
    return { outputDir: "bundle", csvName: "p.v0.0.1" };
  },
  inquirerPrompter: () => prompter,
}));
vi.mock("../../src/oci/index.js", () => ({
  pushBundle: async (image: string, options: Record<string, unknown>) => {
    calls.push.push({ image, options });
    return { digest: "sha256:0" };
  },
}));

const { buildProgram } = await import("../../src/cli/main.js");

/** `tsop <argv>` in-process; returns stdout. */
const parse = (argv: string[]) => parseInProcess(buildProgram({ versionFlag: false }), argv);

/** What `tsop bundle` passes with no flags beyond the ones under test. */
const DEFAULTS = {
  cwd: process.cwd(),
  env: process.env,
  replacesPrevious: false,
  overwrite: true,
  skipGenerate: false,
  useImageDigests: false,
  registry: {},
  fields: {},
  interactive: false,
  yes: false,
  tty: false,
  prompter,
};

const shellQuoted = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg}'`);

beforeEach(() => {
  calls.bundle.length = 0;
  calls.push.length = 0;
});

describe("tsop bundle wiring", () => {
  const cwd = process.cwd();
  it.each([
    [[], {}],
    [
      [
        "--version=0.0.2",
        "--channels=alpha, beta",
        "--default-channel=beta",
        "--package=p",
        "--image=q.io/p:1",
        "--replaces=p.v0.0.1",
        "--skip-range=>=0.1.0 <0.2.0",
        "--skips=p.v0.0.0,p.v0.0.1",
        "--extra-service-accounts=a,b",
        "--output-dir=out",
        "-f",
        "m.yaml",
        "--load-restrictor=LoadRestrictionsNone",
        "--features=disconnected=true",
        "--categories=Database,Storage",
        "--fbc=cat",
        "--bundle-image=q.io/p-bundle:v1",
      ],
      {
        version: "0.0.2",
        channels: ["alpha", "beta"],
        defaultChannel: "beta",
        package: "p",
        image: "q.io/p:1",
        replaces: "p.v0.0.1",
        skipRange: ">=0.1.0 <0.2.0",
        skips: ["p.v0.0.0", "p.v0.0.1"],
        extraServiceAccounts: ["a", "b"],
        outputDir: "out",
        file: "m.yaml",
        loadRestrictor: "none",
        features: "disconnected=true",
        categories: ["Database", "Storage"],
        fbc: "cat",
        bundleImage: "q.io/p-bundle:v1",
      },
    ],
    // Each switch on its own, so two swapped switches cannot pass.
    [["--replaces-previous"], { replacesPrevious: true }],
    [["--no-overwrite"], { overwrite: false }],
    [["--interactive"], { interactive: true }],
    [["-y"], { yes: true }],
    [["--skip-generate"], { skipGenerate: true }],
    [["--use-image-digests"], { useImageDigests: true }],
    [["--skip-tls-verify"], { registry: { skipTlsVerify: true } }],
    [["--refresh-digests"], { registry: { refresh: true } }],
    // operator-sdk's spellings, and --fbc without a directory.
    [
      ["--overwrite=false", "--fbc", "--load-restrictor", "LoadRestrictionsRootOnly"],
      { overwrite: false, fbc: "catalog", loadRestrictor: "rootOnly" },
    ],
    [
      [
        "--use-image-digests",
        "--images-lock=l.lock",
        "--refresh-digests",
        "--registry-config=auth.json",
        "--skip-tls-verify",
        "--plain-http=a:5000, b",
        "--ca-file=ca.pem",
      ],
      {
        useImageDigests: true,
        registry: {
          lockFile: "l.lock",
          refresh: true,
          registryConfig: resolve(cwd, "auth.json"),
          skipTlsVerify: true,
          plainHttp: ["a:5000", "b"],
          caFile: resolve(cwd, "ca.pem"),
        },
      },
    ],
    [["--plain-http"], { registry: { plainHttp: true } }],
    [
      [
        "--display-name=My Operator",
        "--description=Runs things",
        "--provider-name=Me",
        "--provider-url=https://me.example",
        "--keywords=a,b",
        "--maintainers=Jane <jane@example.com>",
        "--maturity=alpha",
        "--capabilities=Basic Install",
        "--icon=icon.png",
        "--links=Docs=https://docs.example",
        "--min-kube-version=1.28.0",
        "--install-modes=OwnNamespace",
      ],
      {
        fields: {
          displayName: "My Operator",
          description: "Runs things",
          providerName: "Me",
          providerUrl: "https://me.example",
          keywords: "a,b",
          maintainers: "Jane <jane@example.com>",
          maturity: "alpha",
          capabilities: "Basic Install",
          icon: "icon.png",
          links: "Docs=https://docs.example",
          minKubeVersion: "1.28.0",
          installModes: "OwnNamespace",
        },
      },
    ],
  ])("%j", async (flags, expected) => {
    await parse(["bundle", ...flags]);
    expect(calls.bundle).toHaveLength(1);
    const { commandLine, sink, ...options } = calls.bundle[0]!;
    expect(options).toEqual({ ...DEFAULTS, ...expected });
    // The line as typed, for the message that shows which flags to add; no sink: the disk.
    expect(commandLine).toBe(["tsop bundle", ...flags.map(shellQuoted)].join(" "));
    expect(sink).toBeUndefined();
  });

  it("--dry-run sends the output set to stdout; -o json prints the result", async () => {
    await parse(["bundle", "--dry-run"]);
    expect(calls.bundle[0]!.sink).toMatchObject({ kind: "stdout" });
    const out = await parse(["bundle", "-o", "json"]);
    expect(JSON.parse(out)).toEqual({ outputDir: "bundle", csvName: "p.v0.0.1" });
  });

  it("refuses a bad version, load restrictor or overwrite value before calling anything", async () => {
    await expect(parse(["bundle", "--version", "v1.0.0"])).rejects.toThrow(/not a semantic version/);
    await expect(parse(["bundle", "--load-restrictor", "Never"])).rejects.toThrow(/LoadRestrictionsNone/);
    await expect(parse(["bundle", "--overwrite=maybe"])).rejects.toThrow(/not true or false/);
    expect(calls.bundle).toHaveLength(0);
  });
});

describe("tsop bundle push wiring", () => {
  const cwd = process.cwd();
  it.each([
    [[], { dir: resolve(cwd, "bundle"), sbom: true }],
    [["--no-sbom"], { dir: resolve(cwd, "bundle"), sbom: false }],
    [
      // --registry-config, --plain-http and -o are also `bundle`'s own flags: they still reach push.
      ["--dir=b", "--oci-layout=oci", "--registry-config=auth.json", "--plain-http", "-o", "json"],
      {
        dir: resolve(cwd, "b"),
        ociLayout: resolve(cwd, "oci"),
        registryConfig: resolve(cwd, "auth.json"),
        plainHttp: true,
        sbom: true,
      },
    ],
    [
      ["--skip-tls-verify", "--ca-file=ca.pem", "--plain-http=r:5000"],
      {
        dir: resolve(cwd, "bundle"),
        skipTlsVerify: true,
        caFile: resolve(cwd, "ca.pem"),
        plainHttp: ["r:5000"],
        sbom: true,
      },
    ],
  ])("%j", async (flags: string[], expected) => {
    const out = await parse(["bundle", "push", "q.io/p-bundle:v1", ...flags]);
    expect(calls.push).toHaveLength(1);
    const { env, reporter, ...options } = calls.push[0]!.options;
    expect(calls.push[0]!.image).toBe("q.io/p-bundle:v1");
    expect(options).toEqual(expected);
    expect(env).toBe(process.env);
    expect(reporter).toBeDefined();
    expect(out).toBe(
      flags.includes("json") ? `${JSON.stringify({ digest: "sha256:0" }, null, 2)}\n` : "sha256:0\n",
    );
    expect(calls.bundle).toHaveLength(0);
  });
});
