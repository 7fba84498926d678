// `npm run cluster`: the real test bed for people and scripts. Starts etcd, kube-apiserver,
// controller-manager, scheduler and kwok (one fake Node) from the rig's binaries, the pod runner,
// OLM (unless --no-olm), and a registry on 127.0.0.1 holding a Node.js base made from this
// machine's node (what `tsop image build --base` needs here) and an opm base made from the rig's opm
// (what `tsop catalog image --base` needs), and a mirror of the scaffold's default operand image
// (docker.io/nginxinc/nginx-unprivileged, a stand-in: test/support/rig/mirror.ts) that tsop reads
// through TSOP_REGISTRY_MIRRORS and the pod runner pulls through the same mirror; writes a
// kubeconfig, prints `kubeconfig: <path>`, `registry: <host>`, `base: <image>`, `opm base: <image>`
// and `mirrors: <TSOP_REGISTRY_MIRRORS>`, and runs until SIGINT, SIGTERM or
// SIGHUP, or until the process that started it is gone, then stops everything. package.json runs it
// as `exec node …` so that signals sent to npm reach it (dash passes none on to its child). Run with
// tsx's loader (`node --import tsx`): the OLM, registry and base steps are test-support TypeScript
// that the package build does not compile.
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type BinaryName, type RealTestCluster, startTestCluster } from "../src/testing/index.js";
import { pushOpmBase } from "../test/catalog/opm-base.js";
import { pushNodeBase } from "../test/operator-image/node-base.js";
import { type OlmOnRig, prepareOlmRig, startOlmOnRig } from "../test/support/olm-rig.js";
import { startRegistry, type TestRegistry } from "../test/support/registry.js";
import { type BedMirror, MIRRORED_SOURCES, serveMirror } from "../test/support/rig/mirror.js";

const HELP = `usage: npm run cluster -- [options]

Starts the real test bed (as root): etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
kwok with one fake Node, the pod runner, OLM unless --no-olm (installed by \`tsop olm install\` from
the manifests shipped with tsop), and a registry on 127.0.0.1 with a Node.js base image made from
this machine's node (for \`tsop image build --base\`) and an opm base made from the rig's opm (for
\`tsop catalog image --base\`; left out when the assets directory has no opm). Binaries come from TSOP_RIG_ASSETS / KUBEBUILDER_ASSETS, else from the rig's
cache (\`npm run rig -- build\`).

The registry also mirrors the scaffold's default operand image, docker.io/nginxinc/nginx-unprivileged
(a stand-in: an HTTP server on 8080 made from this machine's node; docker.io is out of reach), under
<registry>/docker.io/…. With the printed TSOP_REGISTRY_MIRRORS exported, tsop reads that name from the
mirror (\`tsop bundle --use-image-digests\` pins the digest the bed's pods pull), and the pod runner
pulls it through the same mirror, so the operand's pods run too.

What runs for real: every pod whose images come from a registry on 127.0.0.1 (an operator built with
\`tsop image build --base <base> --push <registry>/…\`, whatever it deploys from there, and mirrored
images), and OLM's pods, as local processes with their volumes, service-account token, probes and logs. kwok simulates
every other pod (Running and Ready, no process, no logs).

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

/** A rig binary's path when there is one: from the assets directory, or the listing the rig printed. */
function findRigBinary(binaries: Record<string, string> | undefined, name: string): string | undefined {
  const assets = process.env.TSOP_RIG_ASSETS || process.env.KUBEBUILDER_ASSETS;
  const path = assets ? join(assets, name) : binaries?.[name];
  return path && existsSync(path) ? path : undefined;
}

/** A rig binary's path, or an error naming how to build it. */
function rigBinaryPath(binaries: Record<string, string> | undefined): (name: string) => string {
  return (name) => {
    const path = findRigBinary(binaries, name);
    if (!path) throw new Error(`rig binary "${name}" not found (npm run rig -- build ${name})`);
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
  const prepared = await prepareOlmRig([], MIRRORED_SOURCES);
  const cluster: RealTestCluster = await startTestCluster({
    controlPlane: "real",
    workloads: true,
    ...(binaries ? { binaries } : {}),
    ...prepared.clusterOptions,
  });
  let olm: OlmOnRig | undefined;
  let registry: TestRegistry | undefined;
  let opmBase: string | undefined;
  let mirror: BedMirror | undefined;
  const stop = async (code: number) => {
    await olm?.stop();
    await registry?.stop();
    await cluster.stop();
    process.exit(code);
  };
  try {
    registry = await startRegistry();
    await pushNodeBase(registry, "base/node", "20");
    mirror = await serveMirror(registry, cluster.dataDir);
    olm = await startOlmOnRig(cluster, prepared, {
      install: withOlm,
      binary: rigBinaryPath(binaries),
      mirror,
    });
    // The catalog's base: quay.io's opm image is out of reach here, the rig's opm is not.
    const opm = findRigBinary(binaries, "opm");
    if (opm) opmBase = await pushOpmBase(registry, opm);
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
      `registry: ${registry!.host}\n` +
      `base: ${registry!.host}/base/node:20\n` +
      (opmBase
        ? `opm base: ${opmBase}\n`
        : "opm base: none (no opm in the assets directory: npm run rig -- build opm)\n") +
      `mirrors: ${mirror!.env}\n` +
      `  export KUBECONFIG=${kubeconfigPath}\n` +
      `  export TSOP_REGISTRY_MIRRORS=${mirror!.env}\n` +
      `  tsop image build --base ${registry!.host}/base/node:20 --push ${registry!.host}/<name>:<tag> --plain-http=${registry!.host}\n` +
      (opmBase
        ? `  tsop catalog image --base ${opmBase} ${registry!.host}/<name>-catalog:<tag> --plain-http=${registry!.host}\n`
        : "") +
      "Pods with images from that registry (and OLM's) run as real processes (kubectl logs works);\n" +
      "kwok simulates every other pod (Running, no process).\n" +
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
  process.on("SIGHUP", onSignal);
  // Whoever started the bed owns it: when that process goes without a signal reaching this one
  // (npm killed with SIGKILL, a shell that does not pass signals on), the bed stops too.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) onSignal();
  }, 1000).unref();
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${(error as Error).message}\n`);
  process.exit(1);
});
