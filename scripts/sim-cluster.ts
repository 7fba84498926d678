// `npm run sim-cluster`: a simulated cluster for trying tsop's cluster commands by hand.
// Starts tsop/testing (workloads mode) and the OLM model on 127.0.0.1, optionally installs OLM
// from the fixture release manifests, writes a kubeconfig, prints its path and runs until
// interrupted (Ctrl-C). Run with tsx's loader (`node --import tsx`, a devDependency) because the OLM
// model is test-support TypeScript that the package build does not compile; not with the `tsx`
// command, whose signal relay exits 130 without cleanup when this process is slow to acknowledge.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { TerminalReporter } from "../src/common/reporter.js";
import { olmInstall } from "../src/olm/index.js";
import { startTestCluster } from "../src/testing/index.js";
import { startOlmModel } from "../test/support/olm-model/index.js";

const HELP = `usage: npm run sim-cluster -- [options]

  --port <n>                listen on this 127.0.0.1 port (default: a free port)
  --no-olm                  start without OLM installed (try \`tsop olm install\` against it)
  --kubeconfig <file>       where to write the kubeconfig (default: a temp dir; removed on exit)
  --pod-start-ms <n>        pod Pending → Running delay (default 200)
  --csv-phase-ms <n>        minimum time in each CSV phase (default 300)
  --unpullable <image>      an image whose pulls fail (repeatable)
  -h, --help                show this help
`;

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    olm: { type: "boolean", default: true },
    "no-olm": { type: "boolean", default: false },
    kubeconfig: { type: "string" },
    "pod-start-ms": { type: "string", default: "200" },
    "csv-phase-ms": { type: "string", default: "300" },
    unpullable: { type: "string", multiple: true, default: [] },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const number = (name: string, text: string | undefined): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`error: --${name} must be a non-negative integer, got "${text}"\n`);
    process.exit(2);
  }
  return n;
};

const reporter = new TerminalReporter({ color: Boolean(process.stderr.isTTY) && !process.env.NO_COLOR });
const cluster = await startTestCluster({
  workloads: {
    podStartMs: number("pod-start-ms", values["pod-start-ms"]),
    unpullableImages: values.unpullable ?? [],
  },
});
const model = await startOlmModel({
  kubeconfigPath: cluster.kubeconfigPath,
  delays: {
    csvPhaseMs: number("csv-phase-ms", values["csv-phase-ms"]),
  },
  onError: (error) => reporter.debug(`olm model: ${(error as Error).message}`),
});

// A fixed port is served by a TCP relay to the test server's own (random) port.
let relay: Server | undefined;
let url = cluster.url;
if (values.port !== undefined) {
  const port = number("port", values.port);
  const target = new URL(cluster.url);
  relay = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((ok, fail) => relay!.once("error", fail).listen(port, "127.0.0.1", ok));
  url = `${target.protocol}//127.0.0.1:${port}`;
}

const ownDir = values.kubeconfig ? undefined : join(tmpdir(), `tsop-sim-${process.pid}`);
const kubeconfigPath = resolve(values.kubeconfig ?? join(ownDir!, "kubeconfig"));
await mkdir(dirname(kubeconfigPath), { recursive: true });
await writeFile(kubeconfigPath, cluster.kubeconfig.replace(cluster.url, url), { mode: 0o600 });

const withOlm = values.olm && !values["no-olm"];
if (withOlm) {
  const manifests = fileURLToPath(new URL("../olm-releases/v0.28.0", import.meta.url));
  await olmInstall({ kubeconfig: kubeconfigPath, manifests, env: {}, reporter, timeoutMs: 120_000 });
}

process.stdout.write(
  `Simulated cluster at ${url} (OLM ${withOlm ? "installed" : "not installed"}).\n` +
    `kubeconfig: ${kubeconfigPath}\n` +
    `  export KUBECONFIG=${kubeconfigPath}\n` +
    `  node bin/tsop.cjs olm status\n` +
    "Press Ctrl-C to stop.\n",
);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write("\nstopping the simulated cluster\n");
  relay?.close();
  await model.stop();
  await cluster.stop();
  if (ownDir) await rm(ownDir, { recursive: true, force: true });
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
