// Several tsop writers on one project at once, round after round, with kill -9 at random points:
// two `tsop bundle` runs (each its own --version, one --skip-generate) and a `tsop generate` start
// together; the API type
// alternates between two variants from round to round, so every round has an old and a new output.
// After each round the project must hold a complete output of one run (or the old one): the bundle
// directory byte for byte one of the reference bundles (version × variant, the user's own files
// in it included), and the CRD one of the two reference CRDs. A round whose writer was killed
// mid-swap leaves a commit journal; the next tsop run must complete it (checked at once here).
// Every run that was not killed exits 0 or with a readable message (never a stack trace).
// Used by bench/stress-writers.ts (200+ rounds, figures) and test/cli/writers-stress.test.ts.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { REPO_ROOT, TSOP_BIN } from "./cli.js";
import { seededRandom } from "./random.js";

const EPOCH = "1700000000";
const VERSIONS = ["0.0.1", "0.0.2", "0.0.3"];
const API = "src/api/v1/cart.ts";
const CRD = "config/crd/bases/shop.example.com_carts.yaml";
/** The user's own files in the bundle directory: text and binary, carried over by every run. */
const USER_FILES: Record<string, Buffer> = {
  "bundle/metadata/dependencies.yaml": Buffer.from("dependencies: []\n"),
  "bundle/metadata/extra/logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0xc3, 0x28]),
};

interface RunResult {
  args: string[];
  exitCode: number | null;
  killed: boolean;
  stderr: string;
  ms: number;
}

export interface StressFigures {
  seed: number;
  rounds: number;
  runs: number;
  /** Exit 0. */
  succeeded: number;
  /** Non-zero exit with a readable message (e.g. another tsop held the lock too long). */
  refused: number;
  /** SIGKILLed by the harness. */
  killed: number;
  /** Rounds whose output was complete as soon as every run had ended. */
  intactRounds: number;
  /** Rounds a writer was killed mid-swap in: the next tsop run completed the journal. */
  recoveredRounds: number;
  /** How often each refusal message came (its first line). */
  refusals: Record<string, number>;
  /** Everything that broke the rules: must stay empty. */
  problems: string[];
}

export interface StressOptions {
  rounds: number;
  /**
   * A large file of the user's in the bundle directory (MiB): every bundle run then stages it, so
   * the window in which one writer's files are half-written is wide (races show in few rounds).
   */
  ballastMiB?: number;
  seed?: number;
  /** Called with a line per round (progress). */
  log?: (line: string) => void;
}

function run(cwd: string, args: string[], env: Record<string, string> = {}, killAfterMs?: number) {
  return new Promise<RunResult>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [TSOP_BIN, ...args], {
      cwd,
      env: { ...process.env, CI: "1", NO_COLOR: "1", SOURCE_DATE_EPOCH: EPOCH, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ args, exitCode: code, killed: signal === "SIGKILL", stderr, ms: Date.now() - started });
    });
  });
}

async function must(cwd: string, args: string[]): Promise<RunResult> {
  const result = await run(cwd, args);
  if (result.exitCode !== 0) throw new Error(`tsop ${args.join(" ")} failed:\n${result.stderr}`);
  return result;
}

/** file → sha256 of every regular file under dir (relative paths); anything else is named. */
async function treeDigest(dir: string): Promise<string> {
  const out: string[] = [];
  async function visit(current: string): Promise<void> {
    for (const name of (await readdir(current)).sort()) {
      const full = join(current, name);
      const info = await lstat(full);
      if (info.isDirectory()) await visit(full);
      else if (info.isFile())
        out.push(
          `${relative(dir, full)} ${createHash("sha256")
            .update(await readFile(full))
            .digest("hex")}`,
        );
      else out.push(`${relative(dir, full)} (not a regular file)`);
    }
  }
  await visit(dir).catch(() => out.push("(missing)"));
  return out.join("\n");
}

async function fileDigest(path: string): Promise<string> {
  return readFile(path).then(
    (b) => createHash("sha256").update(b).digest("hex"),
    () => "(missing)",
  );
}

/** Hidden names of tsop's making that a finished, unkilled project must not hold. */
function leftovers(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter(
    (e) =>
      !e.startsWith("node_modules") &&
      /(^|\/)\.(tsop-commit-|tsop-lock|.+\.[0-9a-f]{12}\.tmp$|.+\.(tmp|old)-[0-9a-f]{12}$)/.test(e),
  );
}

function variant(dir: string, which: 0 | 1): void {
  const file = join(dir, API);
  const text = readFileSync(file, "utf8").replace(/@maximum (10|20)\n/, `@maximum ${which ? 20 : 10}\n`);
  writeFileSync(file, text);
}

/** The user project: init + create api, node_modules a link, the base CSV fields in tsop.bundle.yaml. */
async function makeProject(base: string, ballastMiB: number): Promise<string> {
  const dir = join(base, "shop-operator");
  mkdirSync(dir);
  await must(dir, ["init", "--domain", "example.com", "--skip-install", "-y", "."]);
  await must(dir, ["create", "api", "--group", "shop", "--version", "v1", "--kind", "Cart"]);
  const modules = join(base, "modules", "node_modules");
  mkdirSync(modules, { recursive: true });
  for (const entry of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (entry !== "tsop") symlinkSync(join(REPO_ROOT, "node_modules", entry), join(modules, entry));
  }
  symlinkSync(REPO_ROOT, join(modules, "tsop"));
  symlinkSync(modules, join(dir, "node_modules"));
  const config = join(dir, "tsop.bundle.yaml");
  writeFileSync(
    config,
    `${readFileSync(config, "utf8")}description: Runs carts.\nproviderName: Example\nmaintainers: Jane <jane@example.com>\nminKubeVersion: 1.28.0\n`,
  );
  const ballast = randomBytes(ballastMiB * 1024 * 1024);
  for (const [path, bytes] of Object.entries({ ...USER_FILES, "bundle/tests/data/ballast.bin": ballast })) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
  return dir;
}

interface Reference {
  bundles: Map<string, string>;
  crds: Map<string, 0 | 1>;
  soloMs: number;
}

/** The complete output of each version × variant, made one run at a time in a copy. */
async function references(dir: string): Promise<Reference> {
  const copy = `${dir}-reference`;
  cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
  const bundles = new Map<string, string>();
  const crds = new Map<string, 0 | 1>();
  let soloMs = 0;
  for (const which of [0, 1] as const) {
    variant(copy, which);
    for (const version of VERSIONS) {
      const result = await must(copy, ["bundle", "--version", version]);
      soloMs = Math.max(soloMs, result.ms);
      bundles.set(await treeDigest(join(copy, "bundle")), `${version}/${which ? "B" : "A"}`);
    }
    crds.set(await fileDigest(join(copy, CRD)), which);
  }
  rmSync(copy, { recursive: true, force: true });
  return { bundles, crds, soloMs };
}

/** The one refusal a writer may meet here: the lock held longer than it would wait. */
const REFUSAL =
  /^another tsop is writing this project \(pid \d+, `tsop [a-z ]+` since [^)]+\); waited \d+ s$/;

/** A run that ended on its own must exit 0, or be refused with a readable message (no stack trace). */
function judge(result: RunResult, figures: StressFigures, round: number): void {
  figures.runs++;
  if (result.killed) figures.killed++;
  else if (result.exitCode === 0) figures.succeeded++;
  else {
    const first = /^error: (.*)$/m.exec(result.stderr)?.[1];
    const trace = /\n\s+at .+:\d+:\d+/.test(result.stderr) || /unexpected error/i.test(result.stderr);
    if (!first || trace || !REFUSAL.test(first))
      figures.problems.push(
        `round ${round}: tsop ${result.args.join(" ")} exit ${result.exitCode}:\n${result.stderr}`,
      );
    else {
      figures.refused++;
      const key = first.replace(/\(.*\)/, "(…)").replace(/\d+/g, "N");
      figures.refusals[key] = (figures.refusals[key] ?? 0) + 1;
    }
  }
}

async function checkOutput(dir: string, ref: Reference, round: number, when: string): Promise<string[]> {
  const problems: string[] = [];
  const bundle = await treeDigest(join(dir, "bundle"));
  if (!ref.bundles.has(bundle))
    problems.push(`round ${round} (${when}): bundle/ is no complete bundle of any run:\n${bundle}`);
  if (!ref.crds.has(await fileDigest(join(dir, CRD))))
    problems.push(`round ${round} (${when}): ${CRD} is no complete output of generate`);
  return problems;
}

export async function stressWriters(options: StressOptions): Promise<StressFigures> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rand = seededRandom(seed);
  const base = mkdtempSync(join(tmpdir(), "tsop-stress-"));
  const figures: StressFigures = {
    seed,
    rounds: 0,
    runs: 0,
    succeeded: 0,
    refused: 0,
    killed: 0,
    intactRounds: 0,
    recoveredRounds: 0,
    refusals: {},
    problems: [],
  };
  try {
    const dir = await makeProject(base, options.ballastMiB ?? 0);
    const ref = await references(dir);
    variant(dir, 0);
    await must(dir, ["bundle", "--version", VERSIONS[0]!]);
    for (let round = 1; round <= options.rounds; round++) {
      variant(dir, (round % 2) as 0 | 1);
      // Kill about a third of the runs, anywhere from start-up to well past one run's length
      // (runs queue for the lock, so a late kill lands in a later writer's turn).
      const killAt = () => (rand() < 0.35 ? Math.round(rand() * ref.soloMs * 2.5) : undefined);
      // Now and then one run will not wait for the lock: it must fail at once, readably.
      const impatient: Record<string, string> = rand() < 0.3 ? { TSOP_LOCK_TIMEOUT: "0" } : {};
      const version = VERSIONS[round % VERSIONS.length]!;
      const results = await Promise.all([
        run(dir, ["bundle", "--version", version], {}, killAt()),
        run(dir, ["generate"], {}, killAt()),
        // --skip-generate: bundles what the last generate wrote (also a reference bundle).
        run(
          dir,
          ["bundle", "--version", VERSIONS[(round + 1) % VERSIONS.length]!, "--skip-generate"],
          impatient,
          killAt(),
        ),
      ]);
      for (const result of results) judge(result, figures, round);
      const journal = readdirSync(dir).some((n) => n.startsWith(".tsop-commit-"));
      if (journal) {
        // Killed mid-swap: the next tsop run completes the write before it reads anything.
        const next = await run(dir, ["generate"]);
        if (next.exitCode !== 0)
          figures.problems.push(`round ${round}: recovery run failed:\n${next.stderr}`);
        figures.recoveredRounds++;
      } else figures.intactRounds++;
      figures.problems.push(...(await checkOutput(dir, ref, round, journal ? "after recovery" : "as left")));
      if (!results.some((r) => r.killed) && leftovers(dir).length > 0)
        figures.problems.push(`round ${round}: no run was killed, yet left ${leftovers(dir).join(", ")}`);
      figures.rounds = round;
      const outcomes = results.map((r) => (r.killed ? "killed" : `exit ${r.exitCode}`)).join(", ");
      const { succeeded, refused, killed, recoveredRounds } = figures;
      options.log?.(
        `round ${round}: ${outcomes}${journal ? " (journal completed)" : ""} — so far ${succeeded} ok, ${refused} refused, ${killed} killed, ${recoveredRounds} journals completed, ${figures.problems.length} problems`,
      );
      if (figures.problems.length > 0) break;
    }
    // A last, unkilled run leaves nothing of tsop's own behind.
    await must(dir, ["bundle", "--version", VERSIONS[0]!]);
    const left = leftovers(dir);
    if (left.length > 0) figures.problems.push(`after the last run: left ${left.join(", ")}`);
    return figures;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
