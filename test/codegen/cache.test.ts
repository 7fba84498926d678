// The generate cache (src/codegen/cache), driven through the built CLI in temporary projects. Every
// answer the cache gives must equal a --no-cache run of the same project, file for file, and an
// unchanged project must be answered without the compiler. Whether the compiler was loaded is
// observed from outside tsop: a preloaded script reports every read of the compiler's source, which
// loading it starts with (typescript.js, or the minified copy of it tsop's build makes).
import { appendFile, cp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { firstChangedFact, InputRecorder } from "../../src/codegen/cache/inputs.js";
import { REPO_ROOT, TSOP_BIN } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";
import { RUNTIME, tsconfig } from "./support.js";

const TYPESCRIPT_READ = "tsop-test: read typescript.js";

/** A script for `node --require` that reports each read of the TypeScript compiler on stderr. */
async function compilerTracer(): Promise<string> {
  const file = join(await testdir({}, { keep: true }), "trace-typescript.cjs");
  afterAll(() => rm(dirname(file), { recursive: true, force: true }));
  await writeFile(
    file,
    `const fs = require("node:fs");
const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (/[\\\\/]typescript[\\\\/]lib[\\\\/]typescript\\.js$|[\\\\/]typescript-[^\\\\/]*\\.min\\.cjs$/.test(String(path))) process.stderr.write(${JSON.stringify(`${TYPESCRIPT_READ}
`)});
  return read.call(this, path, ...rest);
};
`,
  );
  return file;
}
const T = 110_000;

const API = `import { CustomResource, type Int32, KubeObject, Status } from "tsop";
import type { Shared } from "shared";

/** GadgetSpec is the desired state. */
export interface GadgetSpec {
  /** @minimum 1 */
  size?: Int32;
  shared?: Shared;
}

@CustomResource({ group: "cache.tsop.dev", version: "v1" })
@Status()
export class Gadget extends KubeObject<GadgetSpec> {}
`;

const CONTROLLER = `import { Rbac } from "tsop";

@Rbac({ groups: ["cache.tsop.dev"], resources: ["gadgets"], verbs: ["get", "list", "watch"] })
export class GadgetReconciler {}
`;

/** A project whose tsconfig extends a base, with a type from a package in node_modules. */
function project(): Promise<string> {
  return testdir({
    "tsconfig.base.json": JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        // The first candidate does not exist: creating it must change what "shared" means.
        paths: { tsop: [RUNTIME], shared: ["./local/shared.ts", "./node_modules/shared-types/index.d.ts"] },
      },
      include: ["api", "controllers"],
    }),
    "tsconfig.json": JSON.stringify({ extends: "./tsconfig.base.json" }),
    "api/gadget.ts": API,
    "controllers/gadget.ts": CONTROLLER,
    "node_modules/shared-types/package.json": JSON.stringify({ name: "shared-types", types: "index.d.ts" }),
    "node_modules/shared-types/index.d.ts":
      "export interface Shared {\n  /** From the package. */\n  name?: string;\n}\n",
  });
}

let tracer: Promise<string> | undefined;

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The cache's own debug line (--verbose). */
  cache: string;
  compilerLoaded: boolean;
}

async function tsop(dir: string, args: readonly string[], bin = TSOP_BIN): Promise<Run> {
  tracer ??= compilerTracer();
  const result = await execa(
    process.execPath,
    ["--require", await tracer, bin, "generate", "--verbose", ...args],
    {
      cwd: dir,
      env: { NO_COLOR: "1" },
      reject: false,
      timeout: T,
    },
  );
  const stderr = result.stderr as string;
  return {
    exitCode: result.exitCode ?? -1,
    stdout: result.stdout as string,
    stderr,
    cache: /generate cache: .*/.exec(stderr)?.[0] ?? "(no cache line)",
    compilerLoaded: stderr.includes(TYPESCRIPT_READ),
  };
}

/** Removes the generated files, runs generate, and returns the run and the project's files. */
async function fromScratch(dir: string, args: readonly string[] = [], bin = TSOP_BIN) {
  await rm(join(dir, "config"), { recursive: true, force: true });
  const run = await tsop(dir, args, bin);
  expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
  return { run, tree: await readTree(dir) };
}

/**
 * Runs generate as the project now stands (usually a miss, which stores an entry), again (a hit,
 * without the compiler) and with --no-cache; all three must write the same files. Returns the first.
 */
async function expectSameAsCold(dir: string, bin = TSOP_BIN) {
  const first = await fromScratch(dir, [], bin);
  const hit = await fromScratch(dir, [], bin);
  const cold = await fromScratch(dir, ["--no-cache"], bin);
  expect(hit.run.cache).toMatch(/^generate cache: hit/);
  expect(hit.run.compilerLoaded).toBe(false);
  expect(cold.run.compilerLoaded).toBe(true);
  expect(first.tree).toEqual(cold.tree);
  expect(hit.tree).toEqual(cold.tree);
  return { first: first.run, tree: cold.tree };
}

const CRD = "config/crd/bases/cache.tsop.dev_gadgets.yaml";

async function entryFile(dir: string): Promise<string> {
  const cacheDir = join(dir, "node_modules/.cache/tsop/generate");
  const entries = (await readdir(cacheDir)).filter((name) => name.endsWith(".json"));
  expect(entries).toHaveLength(1);
  return join(cacheDir, entries[0]!);
}

describe("the generate cache", { timeout: 300_000 }, () => {
  it("answers an unchanged project without loading the compiler, with the files of a cold run", async () => {
    const dir = await project();
    const { first, tree } = await expectSameAsCold(dir);
    expect(first.cache).toMatch(/^generate cache: no entry/);
    expect(first.compilerLoaded).toBe(true);
    expect(tree[CRD]).toContain("From the package.");
    expect(tree["config/rbac/role.yaml"]).toContain("gadgets");

    const check = await tsop(dir, ["--check"]);
    expect(check.exitCode, check.stderr).toBe(0);
    expect(check.cache).toMatch(/^generate cache: hit/);
    expect(check.compilerLoaded).toBe(false);
  });

  it("the compiler's code cache written by one analysis is used by the next, not written again", async () => {
    // V8 rejects a code cache made under other V8 flags; every analysis sets the same ones before
    // the compiler loads (src/codegen/cache/code-cache.ts), so each finds the cache the last wrote.
    const dir = await project();
    await fromScratch(dir);
    const codeDir = join(dir, "node_modules/.cache/tsop");
    const [name] = (await readdir(codeDir)).filter((file) => file.endsWith(".bin"));
    expect(name).toBeDefined();
    const file = join(codeDir, name!);
    const before = { inode: (await stat(file)).ino, bytes: await readFile(file) };

    await writeFile(join(dir, "api/gadget.ts"), API.replace("@minimum 1", "@minimum 3"));
    const edit = await fromScratch(dir);
    expect(edit.run.compilerLoaded).toBe(true);
    expect(edit.tree[CRD]).toContain("minimum: 3");
    expect((await stat(file)).ino).toBe(before.inode);
    expect((await readFile(file)).equals(before.bytes)).toBe(true);

    // bundle, install, run local and deploy run the analysis through codegen's generate(), not
    // through the generate command: the cache must fit them too, and theirs the command.
    await writeFile(join(dir, "api/gadget.ts"), API.replace("@minimum 1", "@minimum 4"));
    const script = `const { generate } = await import(${JSON.stringify(join(REPO_ROOT, "dist/codegen/index.js"))});
const { silentReporter } = await import(${JSON.stringify(join(REPO_ROOT, "dist/common/reporter.js"))});
await generate({ cwd: process.cwd() }, silentReporter);`;
    const other = await execa(process.execPath, ["--input-type=module", "-e", script], {
      cwd: dir,
      reject: false,
    });
    expect(other.exitCode, other.stderr).toBe(0);
    expect(await readFile(join(dir, CRD), "utf8")).toContain("minimum: 4");
    expect((await stat(file)).ino).toBe(before.inode);
  });

  it("a damaged code cache of the compiler is not used: the analysis gives the same files and writes it again", async () => {
    // V8 does not check the bytes of a code cache's payload in release builds: used as it is, a
    // damaged file stopped the process with a fatal error in V8's deserializer.
    const dir = await project();
    await fromScratch(dir);
    const codeDir = join(dir, "node_modules/.cache/tsop");
    const [name] = (await readdir(codeDir)).filter((file) => file.endsWith(".bin"));
    const file = join(codeDir, name!);
    const good = await readFile(file);
    const damaged = Buffer.from(good.map((byte, i) => (i < 64 ? byte : byte ^ 0xff)));
    await writeFile(file, damaged);

    await writeFile(join(dir, "api/gadget.ts"), API.replace("@minimum 1", "@minimum 3"));
    const edit = await expectSameAsCold(dir);
    expect(edit.first.compilerLoaded).toBe(true);
    expect((await readFile(file)).equals(damaged)).toBe(false);
  });

  it("--check still compares with the files on disk when it answers from the cache", async () => {
    const dir = await project();
    await expectSameAsCold(dir);
    const crd = await readFile(join(dir, CRD), "utf8");
    await writeFile(join(dir, CRD), crd.replace("minimum: 1", "minimum: 2"));
    const drift = await tsop(dir, ["--check"]);
    expect(drift.compilerLoaded).toBe(false);
    expect(drift.exitCode).toBe(1);
    expect(drift.stdout).toMatch(/^-\s+minimum: 2$/m);
    expect(drift.stdout).toMatch(/^\+\s+minimum: 1$/m);
    const fix = await tsop(dir, []);
    expect(fix.compilerLoaded).toBe(false);
    expect(fix.stderr).toContain(`updated ${CRD}`);
    expect(await readFile(join(dir, CRD), "utf8")).toBe(crd);
  });

  it("a source edit, a new source file and an edited declaration in node_modules each analyse again", async () => {
    const dir = await project();
    await expectSameAsCold(dir);

    await writeFile(join(dir, "api/gadget.ts"), API.replace("@minimum 1", "@minimum 4"));
    const edit = await expectSameAsCold(dir);
    expect(edit.first.cache).toMatch(/changed since the last analysis: read:.*api[\\/]gadget\.ts$/);
    expect(edit.tree[CRD]).toContain("minimum: 4");

    await writeFile(join(dir, "api/widget.ts"), API.replaceAll("Gadget", "Widget"));
    const added = await expectSameAsCold(dir);
    expect(added.first.cache).toMatch(/changed since the last analysis: list:.*api$/);
    expect(added.tree["config/crd/bases/cache.tsop.dev_widgets.yaml"]).toContain("kind: Widget");

    await writeFile(
      join(dir, "node_modules/shared-types/index.d.ts"),
      "export interface Shared {\n  /** From the package. */\n  name?: string;\n  tags?: string[];\n}\n",
    );
    const declaration = await expectSameAsCold(dir);
    expect(declaration.first.cache).toMatch(/read:.*shared-types[\\/]index\.d\.ts$/);
    expect(declaration.tree[CRD]).toContain("tags:");
  });

  it("a path module resolution found missing that now exists analyses again", async () => {
    const dir = await project();
    await expectSameAsCold(dir);
    await mkdir(join(dir, "local"));
    await writeFile(
      join(dir, "local/shared.ts"),
      "export interface Shared {\n  /** Local. */\n  local?: string;\n}\n",
    );
    const shadowed = await expectSameAsCold(dir);
    expect(shadowed.first.cache).toMatch(/changed since the last analysis: (dir|file):.*local/);
    expect(shadowed.tree[CRD]).toContain("local:");
    expect(shadowed.tree[CRD]).not.toContain("From the package.");
  });

  it("an edit of an extended tsconfig analyses again, and the run's warnings are repeated from the cache", async () => {
    const dir = await project();
    await expectSameAsCold(dir);
    const base = join(dir, "tsconfig.base.json");
    await writeFile(
      base,
      (await readFile(base, "utf8")).replace('"include":["api","controllers"]', '"include":["api"]'),
    );
    const edited = await expectSameAsCold(dir);
    expect(edited.first.cache).toMatch(/changed since the last analysis: read:.*tsconfig\.base\.json$/);
    expect(edited.tree["config/rbac/role.yaml"]).toBeUndefined();
    const hit = await tsop(dir, []);
    expect(hit.cache).toMatch(/^generate cache: hit/);
    expect(hit.stderr).toContain("no @Rbac declarations found: role.yaml was not written");
  });

  it("a deleted, damaged or foreign entry is ignored and written again", async () => {
    const dir = await project();
    const { tree } = await expectSameAsCold(dir);
    const entry = await entryFile(dir);
    const whole = await readFile(entry, "utf8");
    const damages: Array<[string, string | undefined]> = [
      ["no entry", undefined],
      ["damaged entry (not JSON)", whole.slice(0, whole.length / 2)],
      ["damaged entry (unexpected shape)", JSON.stringify({ ...JSON.parse(whole), output: { files: "x" } })],
      ["entry of another key", JSON.stringify({ ...JSON.parse(whole), key: "another" })],
    ];
    for (const [reason, content] of damages) {
      if (content === undefined) await rm(entry);
      else await writeFile(entry, content);
      const again = await fromScratch(dir);
      expect(again.run.cache).toContain(`generate cache: ${reason}`);
      expect(again.run.compilerLoaded).toBe(true);
      expect(again.tree).toEqual(tree);
      expect(JSON.parse(await readFile(entry, "utf8"))).toEqual(JSON.parse(whole));
    }
  });

  it("another tsop version does not answer from an entry the previous one wrote", async () => {
    const dir = await project();
    await expectSameAsCold(dir);
    // A copy of tsop with the same code (timestamps kept): first the same version, then a new one.
    const install = await testdir();
    const published = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
      files: string[];
    };
    for (const part of [...published.files, "package.json"])
      await cp(join(REPO_ROOT, part), join(install, part), { recursive: true, preserveTimestamps: true });
    await symlink(realpathSync(join(REPO_ROOT, "node_modules")), join(install, "node_modules"));
    const bin = join(install, "bin/tsop.cjs");
    const same = await fromScratch(dir, [], bin);
    expect(same.run.cache).toMatch(/^generate cache: hit/);

    // A rebuild with other code and the same version (a checkout is keyed by a hash of its code:
    // the CLI's bundle, dist/cli/tsop.cjs).
    await appendFile(join(install, "dist/cli/tsop.cjs"), "\n// rebuilt\n");
    const rebuilt = await fromScratch(dir, [], bin);
    expect(rebuilt.run.cache).toMatch(/^generate cache: no entry/);
    expect(rebuilt.tree).toEqual(same.tree);

    const pkg = JSON.parse(await readFile(join(install, "package.json"), "utf8")) as { version: string };
    await writeFile(join(install, "package.json"), JSON.stringify({ ...pkg, version: "9.9.9-test" }));
    const upgraded = await expectSameAsCold(dir, bin);
    expect(upgraded.first.cache).toMatch(/^generate cache: no entry/);
    expect(upgraded.tree[CRD]).toContain("tsop.dev/version: 9.9.9-test");
  });
});

/** Four kinds: one importing a shared type, one using a global type, one a module augments, one alone. */
function fourKinds(): Promise<string> {
  const kind = (name: string, imports: string, fields: string) =>
    `import { CustomResource, KubeObject } from "tsop";
${imports}
/** ${name}Spec is the desired state. */
export interface ${name}Spec {
${fields}
}

@CustomResource({ group: "reuse.tsop.dev", version: "v1" })
export class ${name} extends KubeObject<${name}Spec> {}
`;
  return testdir({
    "tsconfig.json": tsconfig(),
    "api/shared.ts": "export interface Shared {\n  name?: string;\n}\n",
    "api/alpha.ts": kind("Alpha", 'import type { Shared } from "./shared.js";', "  shared?: Shared;"),
    "api/beta.ts": kind("Beta", "", "  extra?: Extra;"),
    "api/globals.d.ts": "interface Extra {\n  note?: string;\n}\n",
    "api/gamma.ts": kind("Gamma", "", "  size?: string;"),
    "api/augment.ts":
      'import "./gamma.js";\n\ndeclare module "./gamma.js" {\n  interface GammaSpec {\n    added?: string;\n  }\n}\n',
    "api/delta.ts": kind("Delta", "type OrNull<T> = T | null;", "  maybe?: OrNull<string>;"),
  });
}

/** The cache's debug line that counts the reused schemas. */
function reuseLine(run: Run): string {
  return (
    /generate cache: (no schema reused.*|\d+ of \d+ version schemas reused.*)/.exec(run.stderr)?.[1] ?? ""
  );
}

describe("schemas reused after an edit", { timeout: 300_000 }, () => {
  const crd = (plural: string) => `config/crd/bases/reuse.tsop.dev_${plural}.yaml`;
  const edit = async (dir: string, file: string, from: string | RegExp, to: string) => {
    const path = join(dir, file);
    const text = await readFile(path, "utf8");
    const edited = text.replace(from, to);
    expect(edited, `${file}: the edit changes nothing`).not.toBe(text);
    await writeFile(path, edited);
  };

  it("only the kinds an edit can reach are built again; every run writes the files of a cold run", async () => {
    const dir = await fourKinds();
    await expectSameAsCold(dir);
    const steps: Array<{
      why: string;
      file: string;
      from: string;
      to: string;
      reused: number;
      plural: string;
      shows: string;
    }> = [
      {
        why: "a kind's own file",
        file: "api/alpha.ts",
        from: "AlphaSpec is the desired state.",
        to: "AlphaSpec: edited.",
        reused: 3,
        plural: "alphas",
        shows: "AlphaSpec: edited.",
      },
      {
        why: "a file one kind imports",
        file: "api/shared.ts",
        from: "name?: string;",
        to: "name?: string;\n  /** Shared tag. */\n  tag?: string;",
        reused: 3,
        plural: "alphas",
        shows: "Shared tag.",
      },
      // A global declaration and a module augmentation reach kinds that import neither.
      {
        why: "a global declaration",
        file: "api/globals.d.ts",
        from: "note?: string;",
        to: "note?: string;\n  /** Global. */\n  level?: string;",
        reused: 0,
        plural: "betas",
        shows: "Global.",
      },
      {
        why: "a module augmentation",
        file: "api/augment.ts",
        from: "added?: string;",
        to: "added?: string;\n    /** Augmented. */\n    more?: string;",
        reused: 0,
        plural: "gammas",
        shows: "Augmented.",
      },
    ];
    for (const step of steps) {
      await edit(dir, step.file, step.from, step.to);
      const run = await expectSameAsCold(dir);
      expect(reuseLine(run.first), step.why).toBe(
        `${step.reused} of 4 version schemas reused, unchanged since the last analysis`,
      );
      expect(run.tree[crd(step.plural)], step.why).toContain(step.shows);
    }

    // A compiler option changes types without changing any source: OrNull<string> loses its null.
    expect(await readFile(join(dir, crd("deltas")), "utf8")).toContain("nullable: true");
    await edit(dir, "tsconfig.json", '"strict":true', '"strict":true,"strictNullChecks":false');
    const options = await expectSameAsCold(dir);
    expect(reuseLine(options.first)).toBe("0 of 4 version schemas reused, unchanged since the last analysis");
    expect(options.tree[crd("deltas")]).not.toContain("nullable: true");
  });

  it("after an analysis that reported problems, every schema is built again", async () => {
    const dir = await fourKinds();
    await expectSameAsCold(dir);
    await edit(dir, "api/shared.ts", "name?: string;", "name?: string;\n  bad?: any;");
    const failed = await tsop(dir, []);
    expect(failed.exitCode).not.toBe(0);
    expect(failed.stderr).toMatch(/shared\.ts.*any/);
    // An edit that reaches no kind using Shared: its problem must still be reported, as cold.
    await edit(dir, "api/delta.ts", "DeltaSpec is the desired state.", "DeltaSpec: edited.");
    const again = await tsop(dir, []);
    const cold = await tsop(dir, ["--no-cache"]);
    expect(reuseLine(again)).toBe("no schema reused: the last analysis reported problems");
    expect(cold.exitCode).not.toBe(0);
    expect(again.exitCode).toBe(cold.exitCode);
    const problems = (run: Run) => run.stderr.split("\n").filter((line) => /\.ts:\d+:\d+/.test(line));
    expect(problems(cold)).not.toEqual([]);
    expect(problems(again)).toEqual(problems(cold));
  });
});

describe("recorded inputs", () => {
  it("each kind of fact notices its change, and only a change that can matter", async () => {
    const dir = await testdir({
      "src/a.ts": "export {};\n",
      "src/sub/b.ts": "export {};\n",
      "other.ts": "x",
    });
    const recorder = new InputRecorder();
    recorder.readFile(join(dir, "src/a.ts"), "export {};\n");
    recorder.fileExists(join(dir, "src/missing.ts"), false);
    recorder.directoryExists(join(dir, "types"), false);
    await symlink(join(dir, "src/a.ts"), join(dir, "link.ts"));
    recorder.realpath(join(dir, "link.ts"), realpathSync(join(dir, "src/a.ts")));
    recorder.listTree(join(dir, "src"), true);
    const facts = recorder.toFacts();
    expect(recorder.unstable).toBeUndefined();
    expect(firstChangedFact(facts)).toBeUndefined();

    // Neither generated YAML nor an edit outside the recorded facts is a change.
    await writeFile(join(dir, "src/sub/notes.yaml"), "a: 1\n");
    await writeFile(join(dir, "other.ts"), "y");
    expect(firstChangedFact(facts)).toBeUndefined();

    const changes: Array<[string, () => Promise<void>, () => Promise<void>]> = [
      [
        `read:${join(dir, "src/a.ts")}`,
        () => writeFile(join(dir, "src/a.ts"), "export const a = 1;\n"),
        () => writeFile(join(dir, "src/a.ts"), "export {};\n"),
      ],
      [
        `file:${join(dir, "src/missing.ts")}`,
        () => writeFile(join(dir, "src/missing.ts"), ""),
        () => rm(join(dir, "src/missing.ts")),
      ],
      [
        `dir:${join(dir, "types")}`,
        () => mkdir(join(dir, "types")),
        () => rm(join(dir, "types"), { recursive: true }),
      ],
      [
        `realpath:${join(dir, "link.ts")}`,
        async () => {
          await rm(join(dir, "link.ts"));
          await symlink(join(dir, "other.ts"), join(dir, "link.ts"));
        },
        async () => {
          await rm(join(dir, "link.ts"));
          await symlink(join(dir, "src/a.ts"), join(dir, "link.ts"));
        },
      ],
      [
        `list:${join(dir, "src/sub")}`,
        () => writeFile(join(dir, "src/sub/c.ts"), ""),
        () => rm(join(dir, "src/sub/c.ts")),
      ],
      [
        `list:${join(dir, "src/sub")}`,
        () => mkdir(join(dir, "src/sub/deeper")),
        () => rm(join(dir, "src/sub/deeper"), { recursive: true }),
      ],
    ];
    for (const [fact, change, undo] of changes) {
      await change();
      expect(firstChangedFact(facts)).toBe(fact);
      await undo();
      expect(firstChangedFact(facts)).toBeUndefined();
    }
  });

  it("an input read twice with different answers makes the analysis uncacheable", () => {
    const recorder = new InputRecorder();
    recorder.readFile("/p/a.ts", "one");
    recorder.readFile("/p/a.ts", "one");
    expect(recorder.unstable).toBeUndefined();
    recorder.readFile("/p/a.ts", "two");
    expect(recorder.unstable).toBe("/p/a.ts changed during the analysis");
  });
});
