// `npm run cluster`: the real test bed for people and scripts. Starts etcd, kube-apiserver,
// controller-manager, scheduler and kwok (one fake Node) from the rig's binaries, then OLM (unless
// --no-olm), writes a kubeconfig, prints `kubeconfig: <path>` and runs until SIGINT/SIGTERM, then
// stops everything. Run with tsx's loader (`node --import tsx`): the OLM step is test-support
// TypeScript that the package build does not compile.
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type BinaryName, type RealTestCluster, startTestCluster } from "../src/testing/index.js";
import { type OlmOnRig, prepareOlmRig, startOlmOnRig } from "../test/support/olm-rig.js";

const HELP = `usage: npm run cluster -- [options]

Starts the real test bed: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok
(one fake Node; pods become Running without containers), and OLM unless --no-olm: installed by
\`tsop olm install\` from the manifests shipped with tsop, its operators, catalog registry pods and
bundle-unpack Jobs run as local processes by the pod runner (as root). Binaries come from
TSOP_RIG_ASSETS / KUBEBUILDER_ASSETS, else from the rig's cache (\`npm run rig -- build\`).

  --no-olm              start without OLM; a later \`tsop olm install\` still gets running operators
  --kubeconfig <file>   also write the kubeconfig here (default: only in the cluster's temp dir)
  -h, --help            show this help
`;

function usage(message: string): never {
  process.stderr.write(`error: ${message}\n\n${HELP}`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        olm: { type: "boolean", default: true },
        "no-olm": { type: "boolean", default: false },
        kubeconfig: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    usage((error as Error).message);
  }
}

const COMPONENTS: BinaryName[] = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kwok",
];
/** What the pod runner runs for OLM. */
const OLM_BINARIES = ["olm", "catalog", "package-server", "cpb", "opm"];

/** The rig's binaries when the environment names no assets directory (built first if missing). */
function rigBinaries(): Record<string, string> | undefined {
  if (process.env.TSOP_RIG_ASSETS || process.env.KUBEBUILDER_ASSETS) return undefined;
  const rig = fileURLToPath(new URL("rig/index.mjs", import.meta.url));
  const listing = execFileSync(process.execPath, [rig, "build", ...COMPONENTS, ...OLM_BINARIES], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return Object.fromEntries(
    listing
      .trim()
      .split("\n")
      .map((line) => line.split("\t")),
  );
}

/** A rig binary's path: from the assets directory, or the listing the rig printed. */
function rigBinaryPath(binaries: Record<string, string> | undefined): (name: string) => string {
  const assets = process.env.TSOP_RIG_ASSETS || process.env.KUBEBUILDER_ASSETS;
  return (name) => {
    const path = assets ? join(assets, name) : binaries?.[name];
    if (!path || !existsSync(path))
      throw new Error(`rig binary "${name}" not found (npm run rig -- build ${name})`);
    return path;
  };
}

async function main(): Promise<void> {
  const values = parse();
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const withOlm = values.olm && !values["no-olm"];
  const started = Date.now();
  const binaries = rigBinaries();
  const prepared = await prepareOlmRig();
  const cluster: RealTestCluster = await startTestCluster({
    controlPlane: "real",
    workloads: true,
    ...(binaries ? { binaries } : {}),
    ...prepared.clusterOptions,
  });
  let olm: OlmOnRig | undefined;
  const stop = async (code: number) => {
    await olm?.stop();
    await cluster.stop();
    process.exit(code);
  };
  try {
    olm = await startOlmOnRig(cluster, prepared, { install: withOlm, binary: rigBinaryPath(binaries) });
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    await stop(1);
  }
  const kubeconfigPath = values.kubeconfig ? resolve(values.kubeconfig) : cluster.kubeconfigPath;
  if (values.kubeconfig) {
    await mkdir(dirname(kubeconfigPath), { recursive: true });
    await writeFile(kubeconfigPath, cluster.kubeconfig, { mode: 0o600 });
  }
  process.stdout.write(
    `Real cluster (Kubernetes ${cluster.kubernetesVersion}${withOlm ? ", OLM" : ", no OLM"}) at ${cluster.url}, ` +
      `started in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${cluster.dataDir}\n` +
      `kubeconfig: ${kubeconfigPath}\n` +
      `  export KUBECONFIG=${kubeconfigPath}\n` +
      "Press Ctrl-C to stop.\n",
  );
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write("\nstopping the cluster\n");
    void stop(0);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${(error as Error).message}\n`);
  process.exit(1);
});
