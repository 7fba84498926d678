// Importing "tsop" (the built package root) must stay cheap: no CLI dependencies, no TypeScript
// compiler, and no @kubernetes/client-node, not even once Manager.create() has read a kubeconfig and
// talked to the server. A loader hook in a child process records every module the import resolves.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster } from "../../src/testing/index.js";
import { distRuntime, ensureBuilt } from "./support/build.js";

const entry = distRuntime;
const dir = mkdtempSync(join(tmpdir(), "tsop-light-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(ensureBuilt, 120_000);

const FORBIDDEN = ["commander", "@inquirer", "handlebars", "ora", "typescript"];

/** Runs the script in a child (asynchronously: the test cluster in this process must answer it). */
async function loadedPackages(script: string): Promise<{ modules: string[]; cjs: string[] }> {
  const trace = join(dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(trace, "");
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, result.url + "\\n");
  return result;
}
`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const main = join(dir, `main-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    main,
    `import { createRequire } from "node:module";
const tsop = await import(${JSON.stringify(pathToFileURL(entry).href)});
${script}
const require = createRequire(import.meta.url);
console.log(JSON.stringify(Object.keys(require.cache)));
`,
  );
  const { stdout: out } = await promisify(execFile)(
    process.execPath,
    ["--import", pathToFileURL(register).href, main],
    { cwd: dir, encoding: "utf8" },
  );
  return {
    modules: readFileSync(trace, "utf8").split("\n").filter(Boolean),
    cjs: JSON.parse(out) as string[],
  };
}

const packagesIn = (urls: string[]) =>
  [
    ...new Set(urls.map((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1]).filter(Boolean)),
  ] as string[];

describe('import "tsop"', () => {
  it("loads no CLI dependency, no TypeScript compiler, no Kubernetes client and no YAML parser", async () => {
    const { modules, cjs } = await loadedPackages(
      "if (typeof tsop.Manager !== 'function') throw new Error('no Manager');",
    );
    expect(modules.some((u) => u.endsWith("/dist/runtime/index.js"))).toBe(true);
    // Nothing of the test kit (in-memory server, real control plane) comes with the runtime.
    expect(modules.filter((u) => u.includes("/dist/testing/"))).toEqual([]);
    const packages = packagesIn([...modules, ...cjs]);
    for (const name of [...FORBIDDEN, "@kubernetes/client-node", "yaml"])
      expect(packages.filter((p) => p === name || p.startsWith(`${name}/`))).toEqual([]);
  });

  it("Manager.create() and a first request load no @kubernetes/client-node (tsop reads kubeconfigs itself)", async () => {
    const cluster = await startTestCluster();
    try {
      const { modules, cjs } = await loadedPackages(
        `const m = await tsop.Manager.create({ kubeconfig: ${JSON.stringify(cluster.kubeconfigPath)}, handleSignals: false });
const ns = await m.client.get({ apiVersion: "v1", kind: "Namespace" }, { name: "default" });
if (ns?.metadata?.name !== "default") throw new Error("no answer from the server");`,
      );
      const packages = packagesIn([...modules, ...cjs]);
      for (const name of [...FORBIDDEN, "@kubernetes/client-node"])
        expect(packages.filter((p) => p === name || p.startsWith(`${name}/`))).toEqual([]);
      expect(packages).toContain("yaml"); // the kubeconfig parser, loaded on demand
    } finally {
      await cluster.stop();
    }
  });
});
