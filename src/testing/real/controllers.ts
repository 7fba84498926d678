// kube-controller-manager and kube-scheduler, each with its own client certificate (the users the
// bootstrap RBAC roles are written for), talking to the apiserver directly (not through the fault
// proxy), no serving port and no leader election.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { clientCertificate, kubeconfigYaml, type Pki } from "./pki.js";
import { Component } from "./process.js";
import type { Reaper } from "./reaper.js";

export interface ControllerConfig {
  dir: string;
  apiserverUrl: string;
  pki: Pki;
}

async function componentKubeconfig(config: ControllerConfig, file: string, user: string): Promise<string> {
  const path = join(config.dir, file);
  const yaml = kubeconfigYaml(config.apiserverUrl, config.pki.ca.cert, {
    name: user,
    certificate: clientCertificate(config.pki, user),
  });
  await writeFile(path, yaml, { mode: 0o600 });
  return path;
}

const asArgs = (flags: Record<string, string>) => Object.entries(flags).map(([k, v]) => `--${k}=${v}`);

export async function startControllerManager(
  binary: string,
  config: ControllerConfig,
  extraArgs: Record<string, string>,
  reaper: Reaper,
): Promise<Component> {
  const kubeconfig = await componentKubeconfig(
    config,
    "controller-manager.kubeconfig",
    "system:kube-controller-manager",
  );
  const f = config.pki.files;
  const flags = {
    kubeconfig,
    "secure-port": "0",
    "leader-elect": "false",
    // Each controller acts as its own service account, as kubeadm clusters run it.
    "use-service-account-credentials": "true",
    "service-account-private-key-file": f.serviceAccountPrivateKey,
    "root-ca-file": f.caCert,
    "cluster-signing-cert-file": f.caCert,
    "cluster-signing-key-file": f.caKey,
    controllers: "*",
    ...extraArgs,
  };
  return Component.start(
    {
      name: "kube-controller-manager",
      binary,
      args: asArgs(flags),
      logFile: join(config.dir, "kube-controller-manager.log"),
    },
    reaper,
  );
}

export async function startScheduler(
  binary: string,
  config: ControllerConfig,
  extraArgs: Record<string, string>,
  reaper: Reaper,
): Promise<Component> {
  const kubeconfig = await componentKubeconfig(config, "scheduler.kubeconfig", "system:kube-scheduler");
  const flags = { kubeconfig, "secure-port": "0", "leader-elect": "false", ...extraArgs };
  return Component.start(
    { name: "kube-scheduler", binary, args: asArgs(flags), logFile: join(config.dir, "kube-scheduler.log") },
    reaper,
  );
}
