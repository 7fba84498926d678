// The two operators under test, built as their users build them: the Go twin with `go build` from
// its go.mod/go.sum (modules from the Go module proxy), once per machine into the rig's cache keyed
// by its sources and the Go version; the TypeScript twin compiled by tsc's transpiler into a
// throwaway directory whose node_modules/tsop links to this checkout (its built dist/).
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { fail } from "../side-by-side.js";

export interface Operator {
  side: "tsop" | "controller-runtime";
  command: string;
  args: string[];
  cwd: string;
}

const HERE = import.meta.dirname;
const REPO = join(HERE, "../..");
/** The controller-runtime versions the Go twin builds against: its go.mod and go.sum per version. */
export const PEERS = { "v0.25.2": "go-v0.25.2", "v0.22.5": "go" } as const;
export type Peer = keyof typeof PEERS;
/** main.go is the same for every version (bench/runtime-twin/go/main.go). */
const MODULE_FILES = ["go.mod", "go.sum"];

function goBinary(): string {
  if (process.env.GO) return process.env.GO;
  const onPath = spawnSync("go", ["version"], { encoding: "utf8" });
  return onPath.status === 0 ? "go" : "/usr/local/go/bin/go";
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error || r.status !== 0)
    fail(`\`${command} ${args.join(" ")}\` failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  return r.stdout;
}

/** The controller-runtime twin's binary for `peer`, built on first use. */
export function goTwin(peer: Peer = "v0.25.2"): Operator {
  const go = goBinary();
  const sources: Array<[string, string]> = [
    ...MODULE_FILES.map((file): [string, string] => [file, join(HERE, PEERS[peer], file)]),
    ["main.go", join(HERE, "go/main.go")],
  ];
  const hash = createHash("sha256").update(run(go, ["env", "GOVERSION"], HERE));
  for (const [file, path] of sources) hash.update(file).update(readFileSync(path));
  const rigDir = execFileSync(process.execPath, [join(REPO, "scripts/rig/index.mjs"), "dir"], {
    encoding: "utf8",
  }).trim();
  const dir = join(rigDir, `runtime-twin-go-${hash.digest("hex").slice(0, 12)}`);
  const binary = join(dir, "widget-operator");
  if (!existsSync(binary)) {
    process.stderr.write(`vs-runtime: building the controller-runtime ${peer} twin (once per machine)…\n`);
    const stage = `${dir}.tmp-${process.pid}`;
    rmSync(stage, { recursive: true, force: true });
    mkdirSync(join(stage, "src"), { recursive: true });
    for (const [file, path] of sources) writeFileSync(join(stage, "src", file), readFileSync(path));
    const env = { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=mod -buildvcs=false" };
    run(
      "nice",
      ["-n", "10", go, "build", "-trimpath", "-o", join(stage, "widget-operator"), "."],
      join(stage, "src"),
      env,
    );
    rmSync(join(stage, "src"), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(stage, dir);
  }
  return { side: "controller-runtime", command: binary, args: [], cwd: dir };
}

/**
 * The tsop twin: main.ts transpiled next to a node_modules/tsop link to `tsop` (a built checkout).
 * `profileDir`: each run also writes a V8 CPU profile there (open it in Chrome's DevTools).
 */
export async function tsTwin(tsop = REPO, profileDir?: string): Promise<Operator> {
  if (!existsSync(join(tsop, "dist/runtime/index.js")))
    fail(`tsop in ${tsop} is not built: run \`npm run build\` there first`);
  const dir = mkdtempSync(join(tmpdir(), "tsop-runtime-twin-"));
  const source = readFileSync(join(HERE, "ts/main.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
    fileName: "main.ts",
  });
  writeFileSync(join(dir, "main.js"), outputText);
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "widget-operator", private: true, type: "module" })}\n`,
  );
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(resolve(tsop), join(dir, "node_modules/tsop"), "dir");
  // The flags the operator image runs node with, read from that checkout's build.
  const { OPERATOR_NODE_FLAGS } = (await import(
    pathToFileURL(join(tsop, "dist/operator-image/defaults.js")).href
  )) as { OPERATOR_NODE_FLAGS: readonly string[] };
  return {
    side: "tsop",
    command: process.execPath,
    args: [
      ...OPERATOR_NODE_FLAGS,
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(profileDir)}`] : []),
      join(dir, "main.js"),
    ],
    cwd: dir,
  };
}
