// Importing "tsop" (the built package root) must stay cheap: no CLI dependencies, no TypeScript
// compiler, and no Kubernetes client until Manager.create / loadKubeConfig needs it. A loader hook
// in a child process records every module the import resolves.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { distRuntime, ensureBuilt } from "./support/build.js";

const entry = distRuntime;
const dir = mkdtempSync(join(tmpdir(), "tsop-light-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(ensureBuilt, 120_000);

const FORBIDDEN = ["commander", "@inquirer", "handlebars", "ora", "typescript"];

function loadedPackages(script: string): { modules: string[]; cjs: string[] } {
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
  const out = execFileSync(process.execPath, ["--import", pathToFileURL(register).href, main], {
    cwd: dir,
    encoding: "utf8",
  });
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
  it("loads no CLI dependency, no TypeScript compiler and no Kubernetes client", () => {
    const { modules, cjs } = loadedPackages(
      "if (typeof tsop.Manager !== 'function') throw new Error('no Manager');",
    );
    expect(modules.some((u) => u.endsWith("/dist/runtime/index.js"))).toBe(true);
    // Nothing of the test kit (in-memory server, real control plane) comes with the runtime.
    expect(modules.filter((u) => u.includes("/dist/testing/"))).toEqual([]);
    const packages = packagesIn([...modules, ...cjs]);
    for (const name of [...FORBIDDEN, "@kubernetes/client-node"])
      expect(packages.filter((p) => p === name || p.startsWith(`${name}/`))).toEqual([]);
  });

  it("loads the Kubernetes client lazily when a kubeconfig is loaded (the tracer sees it)", () => {
    const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:1" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;
    const { modules } = loadedPackages(
      `await tsop.loadKubeConfig({ kubeconfigText: ${JSON.stringify(kubeconfig)} });`,
    );
    const packages = packagesIn(modules);
    expect(packages).toContain("@kubernetes/client-node");
    for (const name of FORBIDDEN) expect(packages).not.toContain(name);
  });
});
