// `tsop generate types` wiring: argv → the options generateTypes receives (the domain function
// mocked), repeatable inputs, the cluster flags every cluster command takes, --out, --check.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { generateCommand } from "../../src/cli/generate.js";
import { parseInProcess } from "../support/wiring.js";

const calls: unknown[] = [];
vi.mock("../../src/codegen/types-from-crd/index.js", () => ({
  generateTypes: async (options: unknown) => {
    calls.push(options);
    return { files: [], drift: "", changed: 0 };
  },
}));

beforeEach(() => {
  calls.length = 0;
});

function parse(argv: string[]) {
  const program = generateCommand().exitOverride();
  return parseInProcess(program, ["types", ...argv]).then(() => calls);
}

describe("tsop generate types (wiring)", () => {
  it.each([
    [["--from-crd", "a.yaml"], { fromCrd: ["a.yaml"] }],
    [
      ["--from-crd", "a.yaml", "--from-crd", "b.yaml", "--out", "src/types"],
      { fromCrd: ["a.yaml", "b.yaml"], out: "src/types" },
    ],
    [
      ["--from-cluster", "certificates.cert-manager.io", "--kubeconfig", "/k", "--context", "c"],
      {
        fromCluster: ["certificates.cert-manager.io"],
        cluster: expect.objectContaining({ kubeconfig: "/k", context: "c" }),
        check: false,
      },
    ],
    [["--from-crd", "a.yaml", "--check"], { fromCrd: ["a.yaml"], check: true }],
  ])("%j", async (argv, expected) => {
    const [options] = (await parse(argv)) as [Record<string, unknown>];
    expect(calls).toHaveLength(1);
    expect(options).toEqual(expect.objectContaining({ cwd: process.cwd(), ...expected }));
    if (!("out" in expected)) expect(options).not.toHaveProperty("out");
  });
});
