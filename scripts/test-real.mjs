#!/usr/bin/env node
// `npm run test:real`: the real tier in lanes run side by side, each one vitest run of
// vitest.real.config.ts taking its files one at a time. The files that start OLM through the pod
// runner (found by following their imports to test/support/olm-rig.ts) need the machine to
// themselves: OLM's operators listen on fixed host ports, so one such bed per network namespace
// (machine-lock.ts holds them apart even if a file lands in the wrong lane). Where this process may
// make network namespaces (root, `unshare --net`; TEST_REAL_NETNS=0 turns it off), those files split
// into two lanes, "olm" on the host and "olm-ns" in a private network namespace with its own
// loopback — a machine of its own as far as ports go — balanced by the seconds each took in a recent
// run (real-durations.json). npm there reaches its registry through netns-npm-proxy.mjs; nothing else
// leaves the namespace. The "other" lane holds every other file. The beds wait on their components
// more than they compute, so lanes side by side on two cores finish sooner than one. Each lane runs
// its files in batches, each once the rig's peers it needs are built (real-tier-needs.mjs).
// Arguments: options go to every vitest run; other words keep only the files whose path holds one.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { FORWARD_PORT, serveConnectProxy } from "./netns-npm-proxy.mjs";
import { batches, PEERS, peersNeeded } from "./real-tier-needs.mjs";
import { TEST_BED } from "./rig/components.mjs";

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

/** Whether this process can run a lane in a network namespace of its own (root, iproute2). */
function canIsolateNetwork() {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync("unshare", ["--net", "sh", "-c", "ip link set lo up"], { stdio: "ignore" });
  return probe.status === 0;
}

/** Seconds each olm-lane file took in a recent run; a file not listed counts as the median. */
function expectedSeconds() {
  const recorded = JSON.parse(readFileSync(join(root, "scripts/real-durations.json"), "utf8"));
  const values = Object.values(recorded).sort((a, b) => a - b);
  const median = values[Math.floor(values.length / 2)] ?? 100;
  return (file) => recorded[relative(root, file)] ?? median;
}

/** Splits files into two lanes of about equal time: longest first, each into the shorter lane. */
function balance(files) {
  const seconds = expectedSeconds();
  const lanes = [
    { files: [], total: 0 },
    { files: [], total: 0 },
  ];
  for (const file of [...files].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b))) {
    const lane = lanes[0].total <= lanes[1].total ? lanes[0] : lanes[1];
    lane.files.push(file);
    lane.total += seconds(file);
  }
  return lanes.map((lane) => lane.files.sort());
}

function runVitest(name, files, extraArgs, { isolated = false } = {}) {
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
  const env = { ...process.env, TSOP_TEST_LANE: name, ...(isolated ? npmThroughProxy : {}) };
  // A private network namespace: its loopback brought up and npm's way out (netns-npm-proxy.mjs).
  const inNamespace =
    'ip link set lo up && { node "$0" forward "$NPM_PROXY_SOCKET" </dev/null >/dev/null 2>&1 & } && exec "$@"';
  const [command, argv] = isolated
    ? [
        "unshare",
        ["--net", "sh", "-c", inNamespace, join(root, "scripts/netns-npm-proxy.mjs"), "npx", ...args],
      ]
    : ["npx", args];
  const child = spawn(command, argv, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env });
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

/** Builds the named rig components, or waits while another process builds them; resolves its exit code. */
function rigBuild(names, { nice = false } = {}) {
  const rig = [join(root, "scripts/rig/index.mjs"), "build", ...names];
  const [command, argv] = nice ? ["nice", ["-n", "10", process.execPath, ...rig]] : [process.execPath, rig];
  const child = spawn(command, argv, { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  return new Promise((done) => child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0))));
}

/** A lane: its files in batches, each run once the peers it needs are built (real-tier-needs.mjs). */
async function runLane(name, files, extraArgs, how) {
  let failed = 0;
  for (const batch of batches(files, imports)) {
    if (batch.needs.length && (await rigBuild(batch.needs)) !== 0) {
      process.stderr.write(
        `[${name}] the rig could not build ${batch.needs.join(", ")}: ` +
          `${batch.files.map((f) => relative(root, f)).join(", ")} not run\n`,
      );
      failed ||= 1;
      continue;
    }
    failed ||= await runVitest(name, batch.files, extraArgs, how);
  }
  return failed;
}

const options = process.argv.slice(2).filter((a) => a.startsWith("-"));
const filters = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const files = testFiles(join(root, "test"))
  .sort()
  .filter((f) => filters.length === 0 || filters.some((w) => relative(root, f).includes(w)));
const olm = files.filter((f) => startsOlm(f));
const other = files.filter((f) => !olm.includes(f));
const isolate = process.env.TEST_REAL_NETNS !== "0" && canIsolateNetwork();
const [olmHost, olmIsolated] = isolate ? balance(olm) : [olm, []];
const lanes = [
  ["olm", olmHost, {}],
  ["olm-ns", olmIsolated, { isolated: true }],
  ["other", other, {}],
];
if (process.env.TEST_REAL_LANES === "list") {
  for (const [name, laneFiles] of lanes) {
    for (const batch of batches(laneFiles, imports)) {
      for (const f of batch.files)
        process.stdout.write(`${name}\t${relative(root, f)}\t${batch.needs.join(",")}\n`);
    }
  }
  process.exit(0);
}
// The bed proper first (every file needs it), built once here rather than in each lane's global
// setup at once; then the peers in the background while the lanes start, each batch of files
// waiting only for the peers it needs. The lanes' vitest runs use the links made here as they are.
const rig = join(root, "scripts/rig/index.mjs");
execFileSync(process.execPath, [rig, "build", ...TEST_BED], { stdio: ["ignore", "ignore", "inherit"] });
const peersWanted = PEERS.filter((peer) => files.some((f) => peersNeeded(f, imports).includes(peer)));
const peersBuilt = peersWanted.length ? rigBuild(peersWanted, { nice: true }) : Promise.resolve(0);
const assets = execFileSync(process.execPath, [rig, "links"], { encoding: "utf8" }).trim();
Object.assign(process.env, { TSOP_RIG_ASSETS: assets, KUBEBUILDER_ASSETS: assets, TSOP_RIG_PREPARED: "1" });
// npm in the private namespace reaches its registry through a CONNECT proxy on a unix socket.
const npmProxySocket = join(tmpdir(), `tsop-npm-proxy-${process.pid}.sock`);
const npmProxy = isolate && olmIsolated.length ? await serveConnectProxy(npmProxySocket) : undefined;
const viaForwarder = `http://127.0.0.1:${FORWARD_PORT}`;
const npmThroughProxy = {
  NPM_PROXY_SOCKET: npmProxySocket,
  npm_config_https_proxy: viaForwarder,
  npm_config_proxy: viaForwarder,
};
const started = Date.now();
process.stdout.write(
  `test:real: ${olmHost.length} + ${olmIsolated.length} file(s) in the olm lanes` +
    `${isolate ? " (olm-ns in a private network namespace)" : " (one lane)"}, ` +
    `${other.length} in the other, side by side\n`,
);
const codes = await Promise.all(
  lanes.map(([name, laneFiles, how]) => runLane(name, laneFiles, options, how)),
);
// Each of these peers is some file's oracle, so this has ended by now; a failed build fails the run.
if ((await peersBuilt) !== 0) {
  process.stderr.write("test:real: the rig could not build every peer (its message is above)\n");
  codes.push(1);
}
npmProxy?.close();
const seconds = Math.round((Date.now() - started) / 1000);
const summary = lanes.map(([name], i) => `${name} lane exit ${codes[i]}`).join(", ");
process.stdout.write(`test:real: ${summary}, ${seconds} s\n`);
process.exit(codes.find((code) => code !== 0) ?? 0);
