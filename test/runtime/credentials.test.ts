// tsop's own kubeconfig reader and credentials (no @kubernetes/client-node): what the TLS handshake
// and the server see is the oracle. Relative paths resolve against the kubeconfig's directory,
// tls-server-name and insecure-skip-tls-verify steer verification, basic auth and impersonation
// become headers, and a rotated service-account token is picked up.
import { writeFileSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import type { TLSSocket } from "node:tls";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PeriodicFile } from "../../src/runtime/connect/credentials.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { selfSignedCert } from "../../src/common/x509.js";
import { testdir } from "../support/testdir.js";

interface Seen {
  headers: IncomingHttpHeaders;
  clientCN: string;
}

/** An HTTPS server for 127.0.0.1/localhost that asks for a client certificate and records requests. */
async function recordingHttps(): Promise<{ url: string; ca: string; seen: Seen[]; close(): Promise<void> }> {
  const tls = selfSignedCert("server");
  const seen: Seen[] = [];
  const server = createHttpsServer(
    { cert: tls.cert, key: tls.key, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ headers: req.headers, clientCN: String(peer?.subject?.CN ?? "") });
      res.setHeader("content-type", "application/json");
      res.end("{}");
    },
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    ca: tls.cert,
    seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function config(cluster: string[], user: string[]): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: c",
    "  cluster:",
    ...cluster.map((l) => `    ${l}`),
    "users:",
    "- name: u",
    "  user:",
    ...(user.length ? user.map((l) => `    ${l}`) : ["    {}"]),
    "contexts:",
    "- name: x",
    "  context: {cluster: c, user: u}",
    "current-context: x",
  ].join("\n");
}

async function getVia(kubeconfig: string, env: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const loaded = await loadKubeConfig({ kubeconfig, env });
  const rest = new RestClient(loaded.server, loaded, { retry: { attempts: 1 } });
  try {
    return await rest.request("GET", "/api");
  } finally {
    rest.close();
  }
}

let server: Awaited<ReturnType<typeof recordingHttps>> | undefined;
let cluster: TestCluster | undefined;
afterEach(async () => {
  await server?.close();
  await cluster?.stop();
  server = cluster = undefined;
});

describe("kubeconfig files", () => {
  it("resolves certificate-authority, client-certificate and client-key against the kubeconfig's directory", async () => {
    server = await recordingHttps();
    const client = selfSignedCert("relative-user");
    const dir = await testdir({
      "kube/config": config(
        [`server: ${server.url}`, "certificate-authority: pki/ca.crt"],
        ["client-certificate: pki/user.crt", "client-key: pki/user.key"],
      ),
      "kube/pki/ca.crt": server.ca,
      "kube/pki/user.crt": client.cert,
      "kube/pki/user.key": client.key,
    });
    // The process runs elsewhere: the paths only resolve against the file's own directory.
    expect(await getVia(join(dir, "kube/config"))).toEqual({});
    expect(server.seen.at(-1)?.clientCN).toBe("relative-user");
  });

  it("runs an exec plugin named by a relative path from the kubeconfig's directory, and reads a relative tokenFile", async () => {
    server = await recordingHttps();
    const skip = [`server: ${server.url}`, "insecure-skip-tls-verify: true"];
    const dir = await testdir({
      "kube/exec.yaml": config(skip, [
        "exec:",
        "  apiVersion: client.authentication.k8s.io/v1",
        "  command: ./bin/plugin.sh",
      ]),
      "kube/bin/plugin.sh": `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-relative-plugin"}}'\n`,
      "kube/file.yaml": config(skip, ["tokenFile: secrets/token"]),
      "kube/secrets/token": "from-relative-file\n",
    });
    await chmod(join(dir, "kube/bin/plugin.sh"), 0o755);
    await getVia(join(dir, "kube/exec.yaml"), { PATH: process.env.PATH });
    expect(server.seen.at(-1)?.headers.authorization).toBe("Bearer from-relative-plugin");
    await getVia(join(dir, "kube/file.yaml"));
    expect(server.seen.at(-1)?.headers.authorization).toBe("Bearer from-relative-file");
  });

  it("verifies the name in tls-server-name, and skips verification only with insecure-skip-tls-verify", async () => {
    server = await recordingHttps();
    const ca = `certificate-authority-data: ${Buffer.from(server.ca).toString("base64")}`;
    const dir = await testdir({
      "good.yaml": config([`server: ${server.url}`, ca, "tls-server-name: localhost"], []),
      "bad.yaml": config([`server: ${server.url}`, ca, "tls-server-name: elsewhere.example"], []),
      "untrusted.yaml": config([`server: ${server.url}`], []),
      "skip.yaml": config([`server: ${server.url}`, "insecure-skip-tls-verify: true"], []),
    });
    expect(await getVia(join(dir, "good.yaml"))).toEqual({});
    await expect(getVia(join(dir, "bad.yaml"))).rejects.toThrow(/elsewhere\.example/);
    await expect(getVia(join(dir, "untrusted.yaml"))).rejects.toThrow(/self.signed|certificate/i);
    expect(await getVia(join(dir, "skip.yaml"))).toEqual({});
  });

  it("sends basic auth and impersonation headers (as, as-groups)", async () => {
    server = await recordingHttps();
    const dir = await testdir({
      "k.yaml": config(
        [`server: ${server.url}`, "insecure-skip-tls-verify: true"],
        ["username: admin", "password: s3cret", "as: jane", "as-groups: [devs, ops]"],
      ),
    });
    await getVia(join(dir, "k.yaml"));
    const headers = server.seen.at(-1)?.headers ?? {};
    expect(headers.authorization).toBe(`Basic ${Buffer.from("admin:s3cret").toString("base64")}`);
    expect(headers["impersonate-user"]).toBe("jane");
    expect(headers["impersonate-group"]).toBe("devs, ops");
  });

  it("applies a legacy auth-provider (oidc with a valid id-token) through @kubernetes/client-node", async () => {
    server = await recordingHttps();
    const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const idToken = `${b64url({ alg: "none" })}.${b64url({ exp: 4_102_444_800 })}.sig`; // expires in 2100
    const dir = await testdir({
      "k.yaml": config(
        [`server: ${server.url}`, "insecure-skip-tls-verify: true"],
        [
          "auth-provider:",
          "  name: oidc",
          "  config:",
          "    client-id: tsop",
          "    idp-issuer-url: https://issuer.invalid",
          `    id-token: ${idToken}`,
        ],
      ),
    });
    await getVia(join(dir, "k.yaml"));
    expect(server.seen.at(-1)?.headers.authorization).toBe(`Bearer ${idToken}`);
  });

  it("names the file and the field of a broken kubeconfig", async () => {
    const dir = await testdir({
      "noserver.yaml": config(["insecure-skip-tls-verify: true"], []),
      "notyaml.yaml": "clusters: [unclosed",
    });
    await expect(loadKubeConfig({ kubeconfig: join(dir, "noserver.yaml") })).rejects.toThrow(
      /noserver\.yaml is not valid: clusters\[0\]\.cluster\.server is missing/,
    );
    await expect(loadKubeConfig({ kubeconfig: join(dir, "notyaml.yaml") })).rejects.toThrow(
      /notyaml\.yaml is not valid/,
    );
  });
});

describe("in-cluster service account", () => {
  const sa = "var/run/secrets/kubernetes.io/serviceaccount";

  it("brackets an IPv6 service address, as client-go does", async () => {
    const root = await testdir({ [`${sa}/token`]: "t", [`${sa}/ca.crt`]: "x", [`${sa}/namespace`]: "ops" });
    const loaded = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "fd00:10:96::1", KUBERNETES_SERVICE_PORT: "443" },
      inClusterRoot: root,
    });
    expect(loaded.server).toBe("https://[fd00:10:96::1]:443");
    expect(loaded.user.tokenFile).toBe(join(root, sa, "token"));
  });

  it("picks up a rotated token: a 401 reads the token file again and the request goes through", async () => {
    cluster = await startTestCluster({ users: { "rotated-token": "system:serviceaccount:ops:op" } });
    const port = new URL(cluster.url).port;
    const root = await testdir({
      [`${sa}/token`]: cluster.token,
      [`${sa}/ca.crt`]: cluster.caCertificate ?? "",
      [`${sa}/namespace`]: "ops",
    });
    const loaded = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port },
      inClusterRoot: root,
    });
    const rest = new RestClient(loaded.server, loaded, { retry: { attempts: 1 } });
    try {
      await rest.request("GET", "/api/v1/namespaces/kube-system");
      // The kubelet writes a new token; the old one stops working.
      writeFileSync(join(root, sa, "token"), "rotated-token");
      cluster.revokeToken();
      const before = cluster.requests.length;
      await rest.request("GET", "/api/v1/namespaces/default");
      const statuses = cluster.requests.slice(before).map((r) => `${r.status} ${r.user}`);
      expect(statuses).toEqual(["401 system:anonymous", "200 system:serviceaccount:ops:op"]);
    } finally {
      rest.close();
    }
  });

  it("reads a token file again once a minute has passed (fake clock)", async () => {
    const dir = await testdir({ token: "one" });
    let now = 1_000_000;
    const file = new PeriodicFile(join(dir, "token"), 60_000, () => now);
    expect(file.read().toString()).toBe("one");
    writeFileSync(join(dir, "token"), "two");
    now += 59_999;
    expect(file.read().toString()).toBe("one");
    now += 1;
    expect(file.read().toString()).toBe("two");
  });
});
