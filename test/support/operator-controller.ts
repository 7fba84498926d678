// OLM v1's operator-controller (the ClusterExtension controller) on a real control plane, from the
// newest release that builds here (the rig's operator-controller, v1.2.0; docs/olm-v1.md). It runs
// as a local process with the bed's admin credentials (its own RBAC from the release is not
// applied: what it installs, it installs with each ClusterExtension's ServiceAccount, whose RBAC
// applies), its pod namespace from pod-identity.ts, trusting catalogd's CA for the catalogs' HTTPS
// API and a registry's CA for bundle images.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { RealTestCluster } from "../../src/testing/index.js";
import { freePort, probe } from "../../src/testing/real/net.js";
import { type Component, waitUntilReady } from "../../src/testing/real/process.js";
import { Reaper } from "../../src/testing/real/reaper.js";
import { CATALOGD_NAMESPACE, kubectl } from "./catalogd.js";
import { startPodProcess } from "./pod-identity.js";
import { rigBinary } from "./rig.js";

export interface OperatorController {
  logFile: string;
  stop(): Promise<void>;
}

export interface OperatorControllerOptions {
  /** The CA that signed catalogd's serving certificate. */
  catalogdCaFile: string;
  /** A directory of CA certificates for pulling bundle images. */
  pullCaDir: string;
}

export async function startOperatorController(
  cluster: RealTestCluster,
  options: OperatorControllerOptions,
): Promise<OperatorController> {
  const binary = await realpath(rigBinary("operator-controller"));
  const dir = await mkdtemp(join(tmpdir(), "tsop-operator-controller-"));
  const reaper = Reaper.start();
  reaper.watchDirectory(dir);
  let component: Component | undefined;
  const stop = async () => {
    await component?.stop();
    reaper.release();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await kubectl(cluster, ["apply", "-f", join(dirname(binary), "clusterextensions.crd.yaml")]);
    await kubectl(cluster, [
      "wait",
      "--for=condition=Established",
      "crd/clusterextensions.olm.operatorframework.io",
      "--timeout=60s",
    ]);
    const catalogdCas = join(dir, "catalogd-cas");
    await mkdir(catalogdCas);
    await writeFile(join(catalogdCas, "ca.crt"), await readFile(options.catalogdCaFile));
    const probePort = await freePort();
    component = await startPodProcess({
      name: "operator-controller",
      binary,
      args: [
        `--system-namespace=${CATALOGD_NAMESPACE}`,
        `--health-probe-bind-address=127.0.0.1:${probePort}`,
        `--catalogd-cas-dir=${catalogdCas}`,
        `--pull-cas-dir=${options.pullCaDir}`,
        `--cache-path=${join(dir, "cache")}`,
      ],
      dir,
      identity: { namespace: CATALOGD_NAMESPACE, token: "", caCertificate: cluster.caCertificate },
      env: { ...process.env, KUBECONFIG: cluster.kubeconfigPath, TMPDIR: dir },
      reaper,
    });
    const started = component;
    await waitUntilReady(
      started,
      async () => (await probe(`http://127.0.0.1:${probePort}/readyz`)).status === 200,
      120_000,
    );
    return { logFile: started.spec.logFile, stop };
  } catch (error) {
    const log = component ? `\noperator-controller's log ends with:\n${component.logTail()}` : "";
    await stop();
    throw new Error(`${(error as Error).message}${log}`);
  }
}
