// Kubeconfig loading like kubectl, credentials (tokens, exec plugins that must not hang) and the
// proxy rules, against a tiny local HTTP server that records what it receives.
import { chmod } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { KubeClient } from "../../src/kube/client.js";
import { loadConnection } from "../../src/kube/config.js";
import { ClusterUnreachableError, KubeConfigError } from "../../src/kube/errors.js";
import { proxyFor as selectProxy } from "../../src/common/proxy.js";
import { testdir } from "../support/testdir.js";

function kubeconfig(opts: {
  contexts: Array<{ name: string; cluster: string; user: string; namespace?: string }>;
  clusters: Array<{ name: string; server: string }>;
  users: Array<{ name: string; user: Record<string, unknown> }>;
  current?: string;
}): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: opts.clusters.map((c) => ({ name: c.name, cluster: { server: c.server } })),
    contexts: opts.contexts.map((c) => ({
      name: c.name,
      context: { cluster: c.cluster, user: c.user, namespace: c.namespace },
    })),
    users: opts.users,
    "current-context": opts.current ?? "",
  });
}

async function recordingServer(): Promise<{
  url: string;
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    res.setHeader("content-type", "application/json");
    if (req.url?.startsWith("/api/v1/namespaces/default/configmaps/")) {
      res.end(
        JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "x", namespace: "default" },
        }),
      );
      return;
    }
    res.end(
      JSON.stringify({
        kind: "APIResourceList",
        groupVersion: "v1",
        resources: [{ name: "configmaps", namespaced: true, kind: "ConfigMap" }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    headers,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe("kubeconfig loading", () => {
  it("merges KUBECONFIG files like kubectl: first definition and first current-context win, missing files skipped", async () => {
    const dir = await testdir({
      "a.yaml": kubeconfig({
        clusters: [{ name: "shared", server: "http://first.example:1" }],
        users: [{ name: "u", user: { token: "a" } }],
        contexts: [{ name: "ctx-a", cluster: "shared", user: "u", namespace: "team-a" }],
        current: "ctx-a",
      }),
      "b.yaml": kubeconfig({
        clusters: [
          { name: "shared", server: "http://second.example:2" },
          { name: "other", server: "http://other.example:3" },
        ],
        users: [{ name: "u", user: { token: "b" } }],
        contexts: [{ name: "ctx-b", cluster: "other", user: "u" }],
        current: "ctx-b",
      }),
    });
    const env = {
      KUBECONFIG: [join(dir, "missing.yaml"), join(dir, "a.yaml"), join(dir, "b.yaml")].join(delimiter),
    };
    const a = await loadConnection({ env });
    expect(a.contextName).toBe("ctx-a");
    expect(a.cluster.server).toBe("http://first.example:1");
    expect(a.namespace).toBe("team-a");
    expect(a.user.token).toBe("a");
    const b = await loadConnection({ env, context: "ctx-b", namespace: "override" });
    expect(b.cluster.server).toBe("http://other.example:3");
    expect(b.namespace).toBe("override");
    const noNs = await loadConnection({ env, context: "ctx-b" });
    expect(noNs.namespace).toBe("default");
  });

  it("--kubeconfig wins over KUBECONFIG and must exist", async () => {
    const dir = await testdir({
      "only.yaml": kubeconfig({
        clusters: [{ name: "c", server: "http://only.example:1" }],
        users: [{ name: "u", user: {} }],
        contexts: [{ name: "only", cluster: "c", user: "u" }],
        current: "only",
      }),
    });
    const conn = await loadConnection({
      kubeconfig: join(dir, "only.yaml"),
      env: { KUBECONFIG: "/nowhere" },
    });
    expect(conn.contextName).toBe("only");
    await expect(loadConnection({ kubeconfig: join(dir, "nope.yaml"), env: {} })).rejects.toThrow(
      /kubeconfig file .*nope\.yaml does not exist/,
    );
  });

  it("names the known contexts when --context is unknown, and explains a missing kubeconfig", async () => {
    const dir = await testdir({
      "k.yaml": kubeconfig({
        clusters: [{ name: "c", server: "http://x:1" }],
        users: [{ name: "u", user: {} }],
        contexts: [
          { name: "dev", cluster: "c", user: "u" },
          { name: "prod", cluster: "c", user: "u" },
        ],
      }),
    });
    const err = await loadConnection({ kubeconfig: join(dir, "k.yaml"), context: "staging", env: {} }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(KubeConfigError);
    expect(err.message).toContain('context "staging" is not in the kubeconfig');
    expect(err.hint).toContain("dev, prod");
    const none = await loadConnection({ kubeconfig: join(dir, "k.yaml"), env: {} }).catch((e) => e);
    expect(none.message).toContain("no current context");
    const home = await testdir();
    const missing = await loadConnection({ env: { HOME: home } }).catch((e) => e);
    expect(missing).toBeInstanceOf(KubeConfigError);
    expect(missing.message).toContain("no kubeconfig found");
  });
});

describe("credentials", () => {
  it("sends bearer tokens and exec-plugin tokens; the plugin is told it is not interactive", async () => {
    const server = await recordingServer();
    try {
      const dir = await testdir({
        "plugin.sh": `#!/bin/sh\necho "$KUBERNETES_EXEC_INFO" > "$(dirname "$0")/info.json"\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`,
      });
      await chmod(join(dir, "plugin.sh"), 0o755);
      const config = kubeconfig({
        clusters: [{ name: "c", server: server.url }],
        users: [
          { name: "token-user", user: { token: "static-token" } },
          {
            name: "exec-user",
            user: {
              exec: {
                apiVersion: "client.authentication.k8s.io/v1",
                command: join(dir, "plugin.sh"),
                interactiveMode: "IfAvailable",
              },
            },
          },
        ],
        contexts: [
          { name: "token", cluster: "c", user: "token-user" },
          { name: "exec", cluster: "c", user: "exec-user" },
        ],
      });
      const dir2 = await testdir({ "config.yaml": config });
      const path = join(dir2, "config.yaml");
      const tokenClient = await KubeClient.connect({ kubeconfig: path, context: "token", env: {} });
      expect(
        await tokenClient.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "x" }),
      ).toBeDefined();
      tokenClient.close();
      expect(server.headers.at(-1)?.authorization).toBe("Bearer static-token");

      const execClient = await KubeClient.connect({
        kubeconfig: path,
        context: "exec",
        env: { PATH: process.env.PATH },
      });
      await execClient.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "x" });
      execClient.close();
      expect(server.headers.at(-1)?.authorization).toBe("Bearer from-plugin");
      const { readFile } = await import("node:fs/promises");
      const info = JSON.parse(await readFile(join(dir, "info.json"), "utf8"));
      expect(info.spec.interactive).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("an exec plugin that prompts gets no stdin instead of hanging; interactiveMode Always fails without a terminal", async () => {
    const server = await recordingServer();
    try {
      const dir = await testdir({
        // Reads an answer from stdin like a device-code or password prompt would.
        "prompt.sh": `#!/bin/sh\necho "Password: " >&2\nread answer || { echo "no input available" >&2; exit 3; }\necho '{"status":{"token":"'$answer'"}}'\n`,
      });
      await chmod(join(dir, "prompt.sh"), 0o755);
      const config = kubeconfig({
        clusters: [{ name: "c", server: server.url }],
        users: [
          {
            name: "prompt",
            user: {
              exec: {
                apiVersion: "client.authentication.k8s.io/v1",
                command: join(dir, "prompt.sh"),
                interactiveMode: "IfAvailable",
              },
            },
          },
          {
            name: "always",
            user: {
              exec: {
                apiVersion: "client.authentication.k8s.io/v1",
                command: join(dir, "prompt.sh"),
                interactiveMode: "Always",
              },
            },
          },
        ],
        contexts: [
          { name: "prompt", cluster: "c", user: "prompt" },
          { name: "always", cluster: "c", user: "always" },
        ],
      });
      const cfg = join(await testdir({ "c.yaml": config }), "c.yaml");
      const started = Date.now();
      const client = await KubeClient.connect({
        kubeconfig: cfg,
        context: "prompt",
        env: { PATH: process.env.PATH },
        interactive: false,
      });
      const err = await client
        .get({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "x" })
        .catch((e) => e);
      expect(err).toBeInstanceOf(KubeConfigError);
      expect(err.message).toContain("no input available");
      expect(Date.now() - started).toBeLessThan(5000);
      const always = await KubeClient.connect({
        kubeconfig: cfg,
        context: "always",
        env: { PATH: process.env.PATH },
        interactive: false,
      });
      const err2 = await always
        .get({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "x" })
        .catch((e) => e);
      expect(err2.message).toContain("needs an interactive terminal");
    } finally {
      await server.close();
    }
  });

  it("reports an unreachable API server with its address and context", async () => {
    const server = await recordingServer();
    const url = server.url;
    await server.close();
    const cfg = join(
      await testdir({
        "c.yaml": kubeconfig({
          clusters: [{ name: "c", server: url }],
          users: [{ name: "u", user: { token: "t" } }],
          contexts: [{ name: "gone", cluster: "c", user: "u" }],
          current: "gone",
        }),
      }),
      "c.yaml",
    );
    const client = await KubeClient.connect({ kubeconfig: cfg, env: {} });
    const err = await client.get({ apiVersion: "v1", kind: "ConfigMap", name: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(ClusterUnreachableError);
    expect(err.message).toContain(`cannot reach the Kubernetes API server at ${url} (context "gone")`);
    expect(err.message).toContain("ECONNREFUSED");
  });
});

/** The proxy the API server client selects, as text (origin), the way the cluster layer uses it. */
const proxyFor = (url: string, env: NodeJS.ProcessEnv) => selectProxy(new URL(url), env)?.origin;

describe("proxies", () => {
  it("follows HTTPS_PROXY / HTTP_PROXY / NO_PROXY like Go, and never proxies loopback", () => {
    const env = {
      HTTPS_PROXY: "http://proxy:3128",
      HTTP_PROXY: "http://plain:3128",
      NO_PROXY: "internal.example,.corp.example,10.0.0.1:6443",
    };
    expect(proxyFor("https://api.example:6443", env)).toBe("http://proxy:3128");
    expect(proxyFor("http://api.example:8080", env)).toBe("http://plain:3128");
    expect(proxyFor("https://internal.example", env)).toBeUndefined();
    expect(proxyFor("https://k8s.corp.example:6443", env)).toBeUndefined();
    expect(proxyFor("https://10.0.0.1:6443", env)).toBeUndefined();
    expect(proxyFor("https://10.0.0.1:443", env)).toBe("http://proxy:3128");
    expect(proxyFor("https://127.0.0.1:6443", env)).toBeUndefined();
    expect(proxyFor("https://localhost:6443", env)).toBeUndefined();
    expect(proxyFor("https://x", { https_proxy: "http://lower:1", NO_PROXY: "*" })).toBeUndefined();
    expect(proxyFor("https://x", {})).toBeUndefined();
  });

  it("a NO_PROXY CIDR block exempts the API server, as for registries (same selection)", async () => {
    const proxy = await connectRecordingProxy();
    try {
      // TEST-NET-2: nothing answers there; what matters is whether the request went to the proxy.
      const cfg = join(
        await testdir({
          "c.yaml": kubeconfig({
            clusters: [{ name: "c", server: "https://198.51.100.7:6443" }],
            users: [{ name: "u", user: { token: "t" } }],
            contexts: [{ name: "far", cluster: "c", user: "u" }],
            current: "far",
          }),
        }),
        "c.yaml",
      );
      const attempt = async (env: NodeJS.ProcessEnv) => {
        const client = await KubeClient.connect({
          kubeconfig: cfg,
          env,
          retry: { attempts: 1 },
          requestTimeoutMs: 300,
        });
        const err = await client.get({ apiVersion: "v1", kind: "ConfigMap", name: "x" }).catch((e) => e);
        client.close();
        return err;
      };
      const viaProxy = await attempt({ HTTPS_PROXY: proxy.url });
      expect(viaProxy).toBeInstanceOf(Error);
      expect(proxy.seen).toEqual(["CONNECT 198.51.100.7:6443"]);
      const direct = await attempt({ HTTPS_PROXY: proxy.url, NO_PROXY: "10.0.0.0/8,198.51.100.0/24" });
      expect(direct).toBeInstanceOf(ClusterUnreachableError);
      expect(proxy.seen).toEqual(["CONNECT 198.51.100.7:6443"]);
    } finally {
      await proxy.close();
    }
  });
});

/** An HTTP proxy that records CONNECT requests and refuses them (502). */
async function connectRecordingProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((_req, res) => {
    res.statusCode = 405;
    res.end();
  });
  server.on("connect", (req, socket) => {
    seen.push(`${req.method} ${req.url}`);
    socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
