// `tsop --help`, `--version` and offline commands must stay fast: loader hooks in a child process
// record every package the CLI loads from node_modules, V8's coverage every package bundled into the
// CLI whose code ran, and the heavy ones may appear only when a command needs them.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, TSOP_BIN } from "../support/cli.js";
import { pushTestImage, startRegistry } from "../support/registry.js";

const dir = mkdtempSync(join(tmpdir(), "tsop-lazy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAVY = [
  "@kubernetes/client-node",
  "typescript",
  "handlebars",
  "@inquirer",
  "ora",
  "ajv",
  "tar-stream",
  "execa",
  "yaml",
];

/** Packages (node_modules/<name>) loaded, or bundled and run, while running `tsop <args>`. */
function packagesLoaded(args: string[], cwd?: string): string[] {
  return load(args, cwd).packages;
}

/** What running `tsop <args>` loads: packages, and Node's built-in modules by name. */
function load(args: string[], cwd?: string): { packages: string[]; builtins: string[] } {
  const trace = join(dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(trace, "");
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.TSOP_TRACE, result.url + "\\n");
  return result;
}
`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  // CommonJS loads (commander is required, not imported) do not pass the ESM hook: trace them too.
  const cjsTracer = join(dir, "cjs-tracer.cjs");
  writeFileSync(
    cjsTracer,
    `const Module = require("node:module");
const { appendFileSync } = require("node:fs");
const load = Module._load;
Module._load = function (request, parent, isMain) {
  try { appendFileSync(process.env.TSOP_TRACE, Module._resolveFilename(request, parent, isMain) + "\\n"); } catch {}
  return load.apply(this, arguments);
};
`,
  );
  const coverage = mkdtempSync(join(dir, "coverage-"));
  execFileSync(
    process.execPath,
    ["--require", cjsTracer, "--import", pathToFileURL(register).href, TSOP_BIN, ...args],
    {
      cwd,
      env: { ...process.env, TSOP_TRACE: trace, NODE_V8_COVERAGE: coverage },
      stdio: ["ignore", "ignore", "ignore"],
    },
  );
  const urls = readFileSync(trace, "utf8").split("\n").filter(Boolean);
  const names = urls.flatMap((url) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    return match?.[1] ? [match[1]] : [];
  });
  const builtins = urls.filter((url) => isBuiltin(url)).map((url) => url.replace(/^node:/, ""));
  return {
    packages: [...new Set([...names, ...bundledPackagesRun(coverage)])].sort(),
    builtins: [...new Set(builtins)].sort(),
  };
}

interface Coverage {
  result: Array<{
    url: string;
    functions: Array<{ functionName: string; ranges: Array<{ count: number }> }>;
  }>;
}

/**
 * Packages bundled into dist/cli/tsop.cjs (scripts/bundle-cli.mjs) whose code ran: esbuild wraps
 * each bundled module in a function named by its path ("node_modules/yaml/dist/index.js"), run when
 * the module is first imported or required, and V8's coverage counts the calls of each function.
 */
function bundledPackagesRun(coverageDir: string): string[] {
  const names: string[] = [];
  for (const file of readdirSync(coverageDir)) {
    const { result } = JSON.parse(readFileSync(join(coverageDir, file), "utf8")) as Coverage;
    for (const script of result.filter((s) => s.url.endsWith("/dist/cli/tsop.cjs"))) {
      for (const fn of script.functions) {
        const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(fn.functionName);
        if (match?.[1] && (fn.ranges[0]?.count ?? 0) > 0) names.push(match[1]);
      }
    }
  }
  return names;
}

describe("lazy imports", () => {
  // The first three are answered by the start-up fast path (src/cli/fast-path.ts): no package at all.
  it.each([
    [["--help"], false],
    [["--version"], false],
    [["version"], false],
    [["bundle", "--help"], true],
    [["image", "build", "--help"], true],
    [["completion", "bash"], true],
  ])("tsop %j loads no heavy package, nor node:child_process", (args, cli) => {
    const { packages: loaded, builtins } = load(args);
    if (cli) expect(loaded).toContain("commander");
    else expect(loaded).toEqual([]);
    for (const heavy of HEAVY) expect(loaded, `${args.join(" ")} loaded ${heavy}`).not.toContain(heavy);
    // commander loads it for executable subcommands, which tsop has none of (scripts/bundle-cli.mjs).
    expect(builtins, `${args.join(" ")} loaded node:child_process`).not.toContain("child_process");
    if (cli) expect(builtins).toContain("vm");
  });

  it("tsop bundle --use-image-digests loads none but yaml, js-yaml and semver", async () => {
    // It asks a registry for digests (its credentials are read, no helper is run): execa, which
    // a credential helper needs, cost it ~30 ms when loaded with the registry client.
    const registry = await startRegistry();
    try {
      const image = `${registry.host}/lazy/operator:v1`;
      await pushTestImage(registry, "lazy/operator", "v1");
      const project = mkdtempSync(join(dir, "project-"));
      cpSync(join(REPO_ROOT, "fixtures/bundle/memcached/project"), project, { recursive: true });
      const manager = join(project, "config/manager/manager.yaml");
      writeFileSync(
        manager,
        readFileSync(manager, "utf8").replace("image: controller:latest", `image: ${image}`),
      );
      const args = ["bundle", "--skip-generate", "--version", "0.0.1", "--use-image-digests"];
      const loaded = packagesLoaded([...args, "--plain-http", registry.host], project);
      expect(
        readFileSync(join(project, "bundle/manifests/memcached-operator.clusterserviceversion.yaml"), "utf8"),
      ).toContain(`${registry.host}/lazy/operator@sha256:`);
      expect(loaded).toEqual(["commander", "js-yaml", "semver", "yaml"]);
    } finally {
      await registry.stop();
    }
  });
});
