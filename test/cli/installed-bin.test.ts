// tsop as a package manager installs it: the tarball `npm pack` makes, unpacked into a project's
// node_modules, its `tsop` command linked into node_modules/.bin by npm itself (`npm rebuild`), and
// run through that link as a shell runs it (the launcher's shebang, the symlink resolved by Node).
// The start-up fast path and the CLI behind it both answer from the installed copy, and generate
// runs from what the package ships (the compiler's minified copy, the built-in Kubernetes schemas).
import { realpathSync } from "node:fs";
import { mkdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";
import { CLI_LOAD_TRACE_ENV, cliLoaded, compilerFiles } from "../support/cli-load-trace.js";
import { testdir } from "../support/testdir.js";

/** A project with the packed tsop installed and its bin linked by npm; returns the linked command. */
async function installPacked(): Promise<{ bin: string; version: string }> {
  const dir = await testdir({
    "project/package.json": '{ "name": "p", "version": "1.0.0", "private": true }\n',
  });
  const packed = await execa("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
    cwd: REPO_ROOT,
  });
  const [{ filename, version }] = JSON.parse(packed.stdout) as [{ filename: string; version: string }];
  const project = join(dir, "project");
  const installed = join(project, "node_modules/tsop");
  await mkdir(installed, { recursive: true });
  await execa("tar", ["-xzf", join(dir, filename), "-C", installed, "--strip-components=1"]);
  await execa("npm", ["rebuild", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: project });
  // Its dependencies, as an install would have put them (linked only after npm linked the bins, so
  // npm never walks into this checkout's node_modules).
  await symlink(realpathSync(join(REPO_ROOT, "node_modules")), join(installed, "node_modules"));
  return { bin: join(project, "node_modules/.bin/tsop"), version };
}

/** The installed copy's CLI, as test/support/cli-load-trace.ts names it when it is loaded. */
const INSTALLED_CLI = /\/node_modules\/tsop\/dist\/cli\/tsop\.cjs$/;

/** Runs the linked command in its project; `cli` says whether the full CLI answered. */
async function tsop(bin: string, args: string[], cli: boolean): Promise<string> {
  return (await tsopRun(bin, args, cli)).stdout;
}

async function tsopRun(
  bin: string,
  args: string[],
  cli: boolean,
  cwd = dirname(bin),
): Promise<{ stdout: string; stderr: string }> {
  const run = await execa(bin, args, {
    cwd,
    env: {
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
      NO_COLOR: "1",
      ...CLI_LOAD_TRACE_ENV,
    },
    reject: false,
    stripFinalNewline: false,
  });
  expect(run.exitCode, `tsop ${args.join(" ")}: ${run.stderr}`).toBe(0);
  expect(cliLoaded(run.stderr, INSTALLED_CLI), `tsop ${args.join(" ")} loaded the CLI`).toBe(cli);
  return { stdout: run.stdout, stderr: run.stderr };
}

describe("the installed tsop command", () => {
  it("answers --help, --version and version through node_modules/.bin as the CLI does", async () => {
    const { bin, version } = await installPacked();
    expect(await readlink(bin)).toMatch(/^\.\.\/tsop\/bin\//);

    // `tsop help` is commander's own help (the full CLI, loaded by the launcher).
    const help = await tsop(bin, ["help"], true);
    expect(help).toContain("Usage: tsop");
    expect(await tsop(bin, ["--help"], false)).toBe(help);
    expect(await tsop(bin, ["-h"], false)).toBe(help);

    expect(await tsop(bin, ["--version"], false)).toBe(`${version}\n`);
    expect(await tsop(bin, ["--version", "--quiet"], true)).toBe(`${version}\n`);
    const full = await tsop(bin, ["version", "-o", "text"], true);
    expect(full).toMatch(new RegExp(`^tsop ${version.replaceAll(".", "\\.")}\n`));
    expect(await tsop(bin, ["version"], false)).toBe(full);
  }, 60_000);

  it("generates a CRD embedding a Kubernetes type with the compiler and schemas the package ships", async () => {
    const { bin, version } = await installPacked();
    const project = dirname(dirname(dirname(bin)));
    // The project's own dependency on the client's models, as `tsop init` adds it.
    await mkdir(join(project, "node_modules/@kubernetes"), { recursive: true });
    await symlink(
      realpathSync(join(REPO_ROOT, "node_modules/@kubernetes/client-node")),
      join(project, "node_modules/@kubernetes/client-node"),
    );
    await mkdir(join(project, "api"));
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true },
        include: ["api"],
      }),
    );
    await writeFile(
      join(project, "api/runner.ts"),
      `import type { V1PodTemplateSpec } from "@kubernetes/client-node";
import { CustomResource, KubeObject } from "tsop";

export interface RunnerSpec {
  template: V1PodTemplateSpec;
}

@CustomResource({ group: "apps.example.com", version: "v1" })
export class Runner extends KubeObject<RunnerSpec> {}
`,
    );
    const run = await tsopRun(bin, ["generate", "--no-cache"], true, project);
    // The copy of the installed typescript.js: named by its version and byte length.
    const typescript = join(realpathSync(join(project, "node_modules/tsop/node_modules/typescript")));
    const { version: tsVersion } = JSON.parse(await readFile(join(typescript, "package.json"), "utf8")) as {
      version: string;
    };
    const bytes = (await stat(join(typescript, "lib/typescript.js"))).size;
    expect(compilerFiles(run.stderr)).toEqual([
      join(
        realpathSync(join(project, "node_modules/tsop")),
        `dist/typescript/typescript-${tsVersion}-${bytes}.min.cjs`,
      ),
    ]);
    const crd = await readFile(join(project, "config/crd/bases/apps.example.com_runners.yaml"), "utf8");
    expect(crd).toContain(`tsop.dev/version: ${version}`);
    // From the Kubernetes OpenAPI the package ships (the client's .d.ts knows no list-map keys).
    expect(crd).toMatch(/containers:\n(.*\n)*?\s+x-kubernetes-list-map-keys:\n\s+- name/);
  }, 120_000);
});
