// A controller built to run in a pod, run as a local process that still finds its pod identity:
// OLM v1's catalogd and operator-controller read their namespace (and catalogd its ServiceAccount
// from the token) at the fixed in-pod path /var/run/secrets/kubernetes.io/serviceaccount. The
// process gets a private mount namespace (`unshare --mount`) with an empty tmpfs on /run (nothing
// of the host's shows) holding those files; the host's /run is untouched.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Component } from "../../src/testing/real/process.js";
import type { Reaper } from "../../src/testing/real/reaper.js";

export interface PodIdentity {
  namespace: string;
  /** A token of the pod's ServiceAccount (TokenRequest); "" when the program needs none. */
  token: string;
  /** PEM of the cluster CA (ca.crt beside the token). */
  caCertificate: string;
}

export interface PodProcessSpec {
  name: string;
  binary: string;
  args: string[];
  /** A private directory: the identity files go to <dir>/serviceaccount, the log to <dir>/<name>.log. */
  dir: string;
  identity: PodIdentity;
  env: NodeJS.ProcessEnv;
  reaper: Reaper;
}

const SANDBOX = [
  "set -e",
  "mount -t tmpfs tmpfs /run",
  "mkdir -p /run/secrets/kubernetes.io/serviceaccount",
  'cp "$POD_IDENTITY_DIR"/* /run/secrets/kubernetes.io/serviceaccount/',
  'exec "$@"',
].join("\n");

export async function startPodProcess(spec: PodProcessSpec): Promise<Component> {
  const identityDir = join(spec.dir, "serviceaccount");
  await mkdir(identityDir, { recursive: true });
  await writeFile(join(identityDir, "namespace"), spec.identity.namespace);
  await writeFile(join(identityDir, "token"), spec.identity.token);
  await writeFile(join(identityDir, "ca.crt"), spec.identity.caCertificate);
  return Component.start(
    {
      name: spec.name,
      binary: "unshare",
      args: [
        "--mount",
        "--propagation",
        "private",
        "--fork",
        "--",
        "sh",
        "-c",
        SANDBOX,
        "sh",
        spec.binary,
        ...spec.args,
      ],
      logFile: join(spec.dir, `${spec.name}.log`),
      env: { ...spec.env, POD_IDENTITY_DIR: identityDir },
    },
    spec.reaper,
  );
}
