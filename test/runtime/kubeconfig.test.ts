// One kubeconfig loader for the operator library and the CLI, checked against kubectl itself (no
// cluster needed: `kubectl config view --minify` resolves the same files and context). For merged
// KUBECONFIG=a:b lists the operator and `tsop run bundle` must pick the context kubectl picks, skip
// missing files as kubectl does, and let the first file that defines a name win.
import { execFileSync } from "node:child_process";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConnection } from "../../src/kube/config.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { testdir } from "../support/testdir.js";

interface Spec {
  clusters?: Record<string, string>;
  users?: Record<string, string>;
  contexts?: Record<string, { cluster: string; user: string; namespace?: string }>;
  current?: string;
}

function kubeconfig(spec: Spec): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: Object.entries(spec.clusters ?? {}).map(([name, server]) => ({ name, cluster: { server } })),
    users: Object.entries(spec.users ?? {}).map(([name, token]) => ({ name, user: { token } })),
    contexts: Object.entries(spec.contexts ?? {}).map(([name, context]) => ({ name, context })),
    ...(spec.current ? { "current-context": spec.current } : {}),
  });
}

const FILES = {
  "a.yaml": kubeconfig({
    clusters: { shared: "https://first.example:1" },
    users: { u: "token-a" },
    contexts: { "ctx-a": { cluster: "shared", user: "u", namespace: "team-a" } },
    current: "ctx-a",
  }),
  "b.yaml": kubeconfig({
    clusters: { shared: "https://second.example:2", other: "https://other.example:3" },
    users: { u: "token-b" },
    contexts: {
      "ctx-b": { cluster: "other", user: "u" },
      "ctx-shared": { cluster: "shared", user: "u", namespace: "from-b" },
    },
    current: "ctx-b",
  }),
  // Two clusters with nothing in common: only current-context differs.
  "x.yaml": kubeconfig({
    clusters: { x: "https://x.example:1" },
    users: { ux: "token-x" },
    contexts: { "ctx-x": { cluster: "x", user: "ux" } },
    current: "ctx-x",
  }),
  "y.yaml": kubeconfig({
    clusters: { y: "https://y.example:2" },
    users: { uy: "token-y" },
    contexts: { "ctx-y": { cluster: "y", user: "uy", namespace: "team-y" } },
    current: "ctx-y",
  }),
  // Sets no current context: the next file that does chooses it.
  "nocurrent.yaml": kubeconfig({
    clusters: { other: "https://overridden.example:4" },
    contexts: { "ctx-n": { cluster: "other", user: "u" } },
  }),
  // Chooses a context that only a later file defines.
  "points-ahead.yaml": kubeconfig({ users: { u: "token-ahead" }, current: "ctx-shared" }),
};

interface Choice {
  context: string;
  server: string;
  namespace: string | undefined;
  token: string | undefined;
}

function kubectlChoice(kubeconfigVar: string, home: string, context?: string): Choice {
  const env = { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfigVar };
  const args = [
    "config",
    "view",
    "--minify",
    "--raw",
    "-o",
    "json",
    ...(context ? ["--context", context] : []),
  ];
  const view = JSON.parse(execFileSync("kubectl", args, { env, encoding: "utf8" }));
  const current = execFileSync("kubectl", ["config", "current-context"], { env, encoding: "utf8" }).trim();
  return {
    context: context ?? current,
    server: view.clusters[0].cluster.server,
    namespace: view.contexts[0].context.namespace,
    token: view.users[0]?.user.token,
  };
}

async function runtimeChoice(env: NodeJS.ProcessEnv, context?: string): Promise<Choice> {
  const loaded = await loadKubeConfig({ env, context });
  return {
    context: loaded.contextName,
    server: loaded.server,
    namespace: loaded.namespace,
    token: loaded.user.token,
  };
}

async function cliChoice(env: NodeJS.ProcessEnv, context?: string): Promise<Choice> {
  const conn = await loadConnection({ env, context });
  return {
    context: conn.contextName,
    server: conn.cluster.server,
    namespace: conn.namespace === "default" ? undefined : conn.namespace,
    token: conn.user.token,
  };
}

describe("merged KUBECONFIG, as kubectl resolves it", () => {
  const cases: Array<{ name: string; files: string[]; context?: string }> = [
    { name: "the first file's current-context wins (disjoint files)", files: ["x.yaml", "y.yaml"] },
    {
      name: "the first file's current-context wins; a missing file is skipped",
      files: ["missing.yaml", "a.yaml", "b.yaml"],
    },
    { name: "order decides: b before a", files: ["b.yaml", "a.yaml"] },
    {
      name: "--context from the second file, names defined first win",
      files: ["a.yaml", "b.yaml"],
      context: "ctx-shared",
    },
    {
      name: "a file without current-context defers to the next",
      files: ["nocurrent.yaml", "b.yaml", "a.yaml"],
    },
    {
      name: "current-context naming a context of a later file",
      files: ["points-ahead.yaml", "a.yaml", "b.yaml"],
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const dir = await testdir(FILES);
      const home = await testdir();
      const kubeconfigVar = c.files.map((f) => join(dir, f)).join(delimiter);
      const env = { KUBECONFIG: kubeconfigVar, HOME: home };
      const oracle = kubectlChoice(kubeconfigVar, home, c.context);
      expect(await runtimeChoice(env, c.context)).toEqual(oracle);
      expect(await cliChoice(env, c.context)).toEqual(oracle);
    });
  }

  it("a KUBECONFIG whose files are all missing is no kubeconfig, for both", async () => {
    const home = await testdir();
    const env = { KUBECONFIG: join(home, "none.yaml"), HOME: home };
    await expect(loadKubeConfig({ env })).rejects.toThrow(/no kubeconfig found/);
    await expect(loadConnection({ env })).rejects.toThrow(/no kubeconfig found/);
  });
});

describe("a kubeconfig that is a YAML bomb", () => {
  it("is refused as invalid instead of being expanded", async () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      levels.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(", ")}]`);
    }
    const text = `${levels.join("\n")}\nclusters: *i\n`;
    await expect(loadKubeConfig({ kubeconfigText: text })).rejects.toThrow(/kubeconfig text is not valid/);
  });
});
