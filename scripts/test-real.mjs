#!/usr/bin/env node
// `npm run test:real`: the real tier in two lanes run side by side, each one vitest run of
// vitest.real.config.ts taking its files one at a time. The "olm" lane holds the files that start
// OLM through the pod runner (found by following their imports to test/support/olm-rig.ts): OLM's
// operators listen on fixed host ports, so only one such bed runs at a time (machine-lock.ts holds
// them apart even if a file lands in the wrong lane). The other lane holds every other file. The beds
// wait on their components more than they compute, so two lanes on two cores finish sooner than one.
// Arguments: options go to both vitest runs; other words keep only the files whose path holds one.
import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const OLM_ENTRY = resolve(root, "test/support/olm-rig.ts");

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith(".real.test.ts") ? [path] : [];
  });
}

const packageScripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts;

/**
 * The sources a test source reaches: its relative imports (`./x.js` is its `./x.ts`), and the files
 * named by the package.json scripts it reads to run (`pkg.scripts.cluster`: a test that runs
 * `npm run cluster` starts that script's bed in a child process).
 */
function imports(file) {
  const text = readFileSync(file, "utf8");
  const found = [];
  const keep = (target) => {
    if (target.startsWith(join(root, "test")) || target.startsWith(join(root, "scripts"))) found.push(target);
  };
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    keep(resolve(dirname(file), m[1]).replace(/\.js$/, ".ts"));
  }
  for (const m of text.matchAll(/\.scripts(?:\.([\w]+)|\[["']([\w:-]+)["']\])/g)) {
    const command = packageScripts[m[1] ?? m[2]] ?? "";
    for (const path of command.match(/\S+\.(?:[cm]?js|ts)\b/g) ?? []) keep(resolve(root, path));
  }
  return found;
}

/** Whether a file reaches olm-rig.ts through its imports. */
function startsOlm(file, seen = new Set()) {
  if (file === OLM_ENTRY) return true;
  if (seen.has(file)) return false;
  seen.add(file);
  let next;
  try {
    next = imports(file);
  } catch {
    return false; // an import of something that is not a source file (JSON, a fixture)
  }
  return next.some((f) => startsOlm(f, seen));
}

function runLane(name, files, extraArgs) {
  if (files.length === 0) return Promise.resolve(0);
  const args = [
    "vitest",
    "run",
    "-c",
    "vitest.real.config.ts",
    ...extraArgs,
    ...files.map((f) => relative(root, f)),
  ];
  // The lane's name reaches every process of its tests: machine-lock.ts refuses the OLM bed's lock
  // outside the olm lane, so a file this split misses fails at once instead of waiting on the lock.
  const env = { ...process.env, TSOP_TEST_LANE: name };
  const child = spawn("npx", args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env });
  const prefix = (stream, out) => {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop();
      for (const line of lines) out.write(`[${name}] ${line}\n`);
    });
    stream.on("end", () => rest && out.write(`[${name}] ${rest}\n`));
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  return new Promise((done) => child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0))));
}

const options = process.argv.slice(2).filter((a) => a.startsWith("-"));
const filters = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const files = testFiles(join(root, "test"))
  .sort()
  .filter((f) => filters.length === 0 || filters.some((w) => relative(root, f).includes(w)));
const olm = files.filter((f) => startsOlm(f));
const other = files.filter((f) => !olm.includes(f));
if (process.env.TEST_REAL_LANES === "list") {
  for (const f of olm) process.stdout.write(`olm\t${relative(root, f)}\n`);
  for (const f of other) process.stdout.write(`other\t${relative(root, f)}\n`);
  process.exit(0);
}
// Build the rig once here, not in both lanes' global setups at the same time (loudly, as they would).
execFileSync(process.execPath, [join(root, "scripts/rig/index.mjs"), "assets"], {
  stdio: ["ignore", "ignore", "inherit"],
});
const started = Date.now();
process.stdout.write(
  `test:real: ${olm.length} file(s) in the olm lane, ${other.length} in the other, side by side\n`,
);
const [olmCode, otherCode] = await Promise.all([
  runLane("olm", olm, options),
  runLane("other", other, options),
]);
const seconds = Math.round((Date.now() - started) / 1000);
process.stdout.write(`test:real: olm lane exit ${olmCode}, other lane exit ${otherCode}, ${seconds} s\n`);
process.exit(olmCode || otherCode);
