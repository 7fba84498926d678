// The control plane's certificates and keys, written to its temporary directory: a cluster CA
// (serving certificate, client certificates), a front-proxy CA (the fault proxy and the aggregator
// authenticate with its client certificate and pass the user on in X-Remote-* headers), and the
// service-account signing key pair.
import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type IssuedCertificate, issueCertificate } from "../../common/x509.js";

/** CN of the front-proxy client certificate (the apiserver's --requestheader-allowed-names). */
export const FRONT_PROXY_CLIENT = "front-proxy-client";

export interface Pki {
  ca: IssuedCertificate;
  frontProxyCa: IssuedCertificate;
  serving: IssuedCertificate;
  frontProxyClient: IssuedCertificate;
  files: {
    caCert: string;
    caKey: string;
    servingCert: string;
    servingKey: string;
    frontProxyCaCert: string;
    frontProxyClientCert: string;
    frontProxyClientKey: string;
    serviceAccountPublicKey: string;
    serviceAccountPrivateKey: string;
  };
}

export async function writePki(dir: string): Promise<Pki> {
  const ca = issueCertificate({ commonName: "tsop-test-ca", ca: true });
  const frontProxyCa = issueCertificate({ commonName: "tsop-test-front-proxy-ca", ca: true });
  const serving = issueCertificate({
    commonName: "kube-apiserver",
    usages: ["server"],
    hosts: [
      "127.0.0.1",
      "localhost",
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
      "10.0.0.1",
    ],
    issuer: ca,
  });
  const frontProxyClient = issueCertificate({
    commonName: FRONT_PROXY_CLIENT,
    usages: ["client"],
    issuer: frontProxyCa,
  });
  const sa = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const files: Pki["files"] = {
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    servingCert: join(dir, "apiserver.crt"),
    servingKey: join(dir, "apiserver.key"),
    frontProxyCaCert: join(dir, "front-proxy-ca.crt"),
    frontProxyClientCert: join(dir, "front-proxy-client.crt"),
    frontProxyClientKey: join(dir, "front-proxy-client.key"),
    serviceAccountPublicKey: join(dir, "sa.pub"),
    serviceAccountPrivateKey: join(dir, "sa.key"),
  };
  const contents: Array<[string, string]> = [
    [files.caCert, ca.cert],
    [files.caKey, ca.key],
    [files.servingCert, serving.cert],
    [files.servingKey, serving.key],
    [files.frontProxyCaCert, frontProxyCa.cert],
    [files.frontProxyClientCert, frontProxyClient.cert],
    [files.frontProxyClientKey, frontProxyClient.key],
    [files.serviceAccountPublicKey, sa.publicKey.export({ type: "spki", format: "pem" }) as string],
    [files.serviceAccountPrivateKey, sa.privateKey.export({ type: "pkcs8", format: "pem" }) as string],
  ];
  await Promise.all(contents.map(([path, text]) => writeFile(path, text, { mode: 0o600 })));
  return { ca, frontProxyCa, serving, frontProxyClient, files };
}

/** A client certificate signed by the cluster CA: `user` with `groups` as its O= values. */
export function clientCertificate(pki: Pki, user: string, groups: string[] = []): IssuedCertificate {
  return issueCertificate({ commonName: user, organizations: groups, usages: ["client"], issuer: pki.ca });
}

const b64 = (text: string) => Buffer.from(text).toString("base64");

/** Kubeconfig YAML for `server`, trusting the cluster CA, authenticating with a client certificate or a token. */
export function kubeconfigYaml(
  server: string,
  caCert: string,
  user: { name: string; certificate?: IssuedCertificate; token?: string },
): string {
  const credentials = user.certificate
    ? [
        `    client-certificate-data: ${b64(user.certificate.cert)}`,
        `    client-key-data: ${b64(user.certificate.key)}`,
      ]
    : [`    token: ${user.token}`];
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: tsop-test",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caCert)}`,
    "contexts:",
    "- name: tsop-test",
    "  context:",
    "    cluster: tsop-test",
    `    user: ${user.name}`,
    "    namespace: default",
    "current-context: tsop-test",
    "preferences: {}",
    "users:",
    `- name: ${user.name}`,
    "  user:",
    ...credentials,
    "",
  ].join("\n");
}
