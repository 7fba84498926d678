// Command wiring: argv → the options object the domain function receives (the domain module is
// mocked here and only here; everything else runs the real thing).
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => ({ init: [] as unknown[], createApi: [] as unknown[] }));

vi.mock("../../src/scaffold/index.js", () => ({
  init: async (options: Record<string, unknown>) => {
    calls.init.push(options);
    return { dir: options.dir, projectName: "x", image: "i", files: [], installed: false };
  },
  createApi: async (options: unknown) => {
    calls.createApi.push(options);
    return { root: "/p", resource: {}, files: [] };
  },
  inquirerPrompter: async () => {
    throw new Error("no prompts in wiring tests");
  },
  resolveInitFlags: async (flags: { domain?: string; projectName?: string }) => ({
    domain: flags.domain ?? "prompted.example.com",
    ...(flags.projectName ? { projectName: flags.projectName } : {}),
  }),
}));

const { buildProgram } = await import("../../src/cli/main.js");

async function parse(argv: string[]): Promise<void> {
  const program = buildProgram({ versionFlag: false });
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await program.parseAsync(argv, { from: "user" });
  } finally {
    process.stdout.write = write;
  }
}

beforeEach(() => {
  calls.init.length = 0;
  calls.createApi.length = 0;
});

describe("tsop init wiring", () => {
  it.each([
    [
      ["init", "/tmp/op", "--domain", "example.com"],
      { dir: "/tmp/op", domain: "example.com", license: "apache2", force: false, install: true },
    ],
    [
      [
        "init",
        "/tmp/op",
        "--domain=a.io",
        "--project-name=p",
        "--owner=Me",
        "--license=none",
        "--repo=r",
        "--image=q.io/p:1",
        "--skip-install",
        "--force",
        "--tsop-dependency=file:/t",
      ],
      {
        dir: "/tmp/op",
        domain: "a.io",
        projectName: "p",
        owner: "Me",
        license: "none",
        repo: "r",
        image: "q.io/p:1",
        tsopDependency: "file:/t",
        force: true,
        install: false,
      },
    ],
  ])("%j", async (argv, expected) => {
    await parse(argv);
    expect(calls.init).toHaveLength(1);
    const options = calls.init[0] as Record<string, unknown>;
    const { commands, signal, ...rest } = options;
    expect(rest).toEqual(expected);
    // Ctrl-C reaches init (to stop npm install) through withInterrupt's signal.
    expect(signal).toBeInstanceOf(AbortSignal);
    // The scaffolded scripts name only commands the program has.
    expect(commands).toBeInstanceOf(Set);
    expect(commands as Set<string>).toContain("create api");
  });
});

describe("tsop create api wiring", () => {
  const base = { group: "cache", version: "v1alpha1", kind: "Memcached" };
  it.each([
    [[], { ...base, namespaced: true, resource: true, controller: true, force: false }],
    [
      ["--namespaced=false", "--plural", "mcs"],
      { ...base, plural: "mcs", namespaced: false, resource: true, controller: true, force: false },
    ],
    [
      ["--no-namespaced", "--controller", "false", "--force"],
      { ...base, namespaced: false, resource: true, controller: false, force: true },
    ],
    [
      ["--resource=no", "--controller=yes"],
      { ...base, namespaced: true, resource: false, controller: true, force: false },
    ],
  ])("%j", async (extra, expected) => {
    await parse([
      "create",
      "api",
      "--group",
      "cache",
      "--version",
      "v1alpha1",
      "--kind",
      "Memcached",
      ...extra,
    ]);
    expect(calls.createApi).toEqual([{ cwd: process.cwd(), ...expected }]);
  });
});
