// kube-apiserver for one test cluster: TLS with the generated certificates, RBAC, client
// certificates and a static admin token, service-account tokens signed with the generated key,
// front-proxy (requestheader) authentication for the fault proxy and aggregated APIs.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FRONT_PROXY_CLIENT, type Pki } from "./pki.js";
import { Component, waitUntilReady } from "./process.js";
import { freePort, probe } from "./net.js";
import type { Reaper } from "./reaper.js";

export const SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24";
export const SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";

export interface ApiServerConfig {
  binary: string;
  dir: string;
  etcdUrl: string;
  pki: Pki;
  /** Bearer token of the static admin user (group system:masters). */
  adminToken: string;
  /** Without controller-manager no "default" ServiceAccount appears, so (like envtest) pods skip that admission. */
  serviceAccountAdmission: boolean;
  /** Extra or overriding flags, without the leading "--". */
  extraArgs: Record<string, string>;
  timeoutMs: number;
}

export interface ApiServer {
  component: Component;
  url: string;
}

function flags(config: ApiServerConfig, port: number, tokenFile: string): Record<string, string> {
  const f = config.pki.files;
  return {
    "etcd-servers": config.etcdUrl,
    "bind-address": "127.0.0.1",
    "advertise-address": "127.0.0.1",
    "secure-port": String(port),
    "tls-cert-file": f.servingCert,
    "tls-private-key-file": f.servingKey,
    "client-ca-file": f.caCert,
    "token-auth-file": tokenFile,
    "authorization-mode": "RBAC",
    "service-account-key-file": f.serviceAccountPublicKey,
    "service-account-signing-key-file": f.serviceAccountPrivateKey,
    "service-account-issuer": SERVICE_ACCOUNT_ISSUER,
    "service-cluster-ip-range": SERVICE_CLUSTER_IP_RANGE,
    "allow-privileged": "true",
    "requestheader-client-ca-file": f.frontProxyCaCert,
    "requestheader-allowed-names": FRONT_PROXY_CLIENT,
    "requestheader-username-headers": "X-Remote-User",
    "requestheader-group-headers": "X-Remote-Group",
    "requestheader-extra-headers-prefix": "X-Remote-Extra-",
    "proxy-client-cert-file": f.frontProxyClientCert,
    "proxy-client-key-file": f.frontProxyClientKey,
    // No kube-proxy here: the aggregator dials an APIService's endpoints, not its ClusterIP.
    "enable-aggregator-routing": "true",
    "cert-dir": join(config.dir, "apiserver-certs"),
    ...(config.serviceAccountAdmission ? {} : { "disable-admission-plugins": "ServiceAccount" }),
    ...config.extraArgs,
  };
}

/** Starts kube-apiserver; `port` keeps a restarted one where clients (and the fault proxy) look. */
export async function startApiServer(
  config: ApiServerConfig,
  reaper: Reaper,
  port?: number,
): Promise<ApiServer> {
  port ??= await freePort();
  const tokenFile = join(config.dir, "tokens.csv");
  await writeFile(tokenFile, `${config.adminToken},tsop-admin,tsop-admin,"system:masters"\n`, {
    mode: 0o600,
  });
  const args = Object.entries(flags(config, port, tokenFile)).map(([k, v]) => `--${k}=${v}`);
  const component = Component.start(
    { name: "kube-apiserver", binary: config.binary, args, logFile: join(config.dir, "kube-apiserver.log") },
    reaper,
  );
  const url = `https://127.0.0.1:${port}`;
  await waitUntilReady(
    component,
    async () => {
      const r = await probe(`${url}/readyz`, {
        ca: config.pki.ca.cert,
        token: config.adminToken,
        timeoutMs: 5000,
      });
      return r.status === 200;
    },
    config.timeoutMs,
  );
  return { component, url };
}
