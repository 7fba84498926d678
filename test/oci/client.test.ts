// The registry client against the real docker-registry: digests agree with skopeo, each auth
// variant and credential source works, failures are classified and never leak secrets, uploads
// (monolithic, chunked, cross-repo mount) land, transient failures are retried, proxies honoured.
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryClient, type RegistryClientOptions } from "../../src/oci/client.js";
import { sha256Digest } from "../../src/oci/digest.js";
import { RegistryError } from "../../src/oci/errors.js";
import { parseReference } from "../../src/oci/reference.js";
import {
  pushTestImage,
  startFaultyFront,
  startProxy,
  startRegistry,
  type TestRegistry,
} from "../support/registry.js";
import { testdir } from "../support/testdir.js";

const PASSWORD = "s3cret-pass";
const clients: RegistryClient[] = [];
function client(options: RegistryClientOptions): RegistryClient {
  const c = new RegistryClient({ retries: 1, backoffMs: 5, ...options });
  clients.push(c);
  return c;
}
afterAll(() => {
  for (const c of clients) c.close();
});

/** An environment with no ambient credentials: HOME and config dirs point into a temp dir. */
async function cleanEnv(extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  const home = await testdir();
  return { PATH: process.env.PATH, HOME: home, ...extra };
}

async function authFile(registry: TestRegistry, password = PASSWORD): Promise<string> {
  const dir = await testdir();
  const path = join(dir, "auth.json");
  const auth = Buffer.from(`tester:${password}`).toString("base64");
  await writeFile(path, JSON.stringify({ auths: { [registry.host]: { auth } } }));
  return path;
}

async function expectFailure(promise: Promise<unknown>, kind: RegistryError["kind"]): Promise<RegistryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RegistryError);
  expect((error as RegistryError).kind).toBe(kind);
  expect((error as Error).message).not.toContain(PASSWORD);
  expect(String((error as RegistryError).hint ?? "")).not.toContain(PASSWORD);
  return error as RegistryError;
}

describe("open registry (plain HTTP)", () => {
  let registry: TestRegistry;
  let skopeoDigest: string;
  beforeAll(async () => {
    registry = await startRegistry();
    skopeoDigest = await pushTestImage(registry, "team/app", "v1");
  });
  afterAll(() => registry?.stop());

  it("resolves the digest skopeo reports, when asked for plain HTTP", async () => {
    const c = client({ plainHttp: [registry.host], env: await cleanEnv() });
    const { digest } = await c.resolveDigest(parseReference(`${registry.host}/team/app:v1`));
    expect(digest).toBe(skopeoDigest);
  });

  it("falls back to HTTP for a registry on this machine, as docker does", async () => {
    const c = client({ env: await cleanEnv() });
    const { digest } = await c.resolveDigest(parseReference(`${registry.host}/team/app:v1`));
    expect(digest).toBe(skopeoDigest);
  });

  it("fetches and verifies a manifest and its blobs", async () => {
    const c = client({ env: await cleanEnv() });
    const ref = parseReference(`${registry.host}/team/app:v1`);
    const manifest = await c.getManifest(ref);
    expect(manifest.digest).toBe(skopeoDigest);
    const config = manifest.json.config as { digest: string; size: number; mediaType: string };
    const blob = await c.getBlob(registry.host, "team/app", config, 1024 * 1024);
    expect(sha256Digest(blob)).toBe(config.digest);
    // A descriptor that lies about the content is refused.
    await expectFailure(
      c.getBlob(registry.host, "team/app", { ...config, size: config.size + 1 }, 1024 * 1024),
      "digest-mismatch",
    );
    await expectFailure(c.getBlob(registry.host, "team/app", config, 10), "too-large");
  });

  it("reports a missing tag and a missing repository as not found", async () => {
    const c = client({ env: await cleanEnv() });
    const e1 = await expectFailure(
      c.resolveDigest(parseReference(`${registry.host}/team/app:nope`)),
      "not-found",
    );
    expect(e1.message).toContain(`${registry.host}/team/app:nope not found`);
    await expectFailure(c.resolveDigest(parseReference(`${registry.host}/team/none:v1`)), "not-found");
  });

  it("uploads blobs monolithically and in chunks, and mounts across repositories", async () => {
    const c = client({ env: await cleanEnv() });
    const small = Buffer.from("small blob");
    const big = Buffer.alloc(100_000, 7);
    expect((await c.uploadBlob(registry.host, "up/one", small)).how).toBe("uploaded");
    expect((await c.uploadBlob(registry.host, "up/one", big, { chunkSize: 30_000 })).how).toBe("uploaded");
    expect((await c.uploadBlob(registry.host, "up/one", big)).how).toBe("exists");
    const fetched = await c.getBlob(
      registry.host,
      "up/one",
      { mediaType: "x", digest: sha256Digest(big), size: big.length },
      1e6,
    );
    expect(fetched.equals(big)).toBe(true);
    const mounted = await c.uploadBlob(registry.host, "up/two", big, { mountFrom: "up/one" });
    expect(mounted.how).toBe("mounted");
    expect(await c.hasBlob(registry.host, "up/two", sha256Digest(big))).toBe(true);
  });

  it("retries 503 and 429 answers, then gives up with the status", async () => {
    const front = await startFaultyFront(registry);
    try {
      const c = client({ env: await cleanEnv(), retries: 3, backoffMs: 1 });
      front.faults.push({ path: /manifests/, status: 503, count: 2 });
      front.faults.push({ path: /manifests/, status: 429, count: 1, retryAfterSeconds: 0 });
      const { digest } = await c.resolveDigest(parseReference(`${front.host}/team/app:v1`));
      expect(digest).toBe(skopeoDigest);
      expect(front.log.filter((l) => l.includes("manifests")).length).toBe(4);
      front.faults.push({ path: /manifests/, status: 500, count: 100 });
      const error = await expectFailure(
        c.resolveDigest(parseReference(`${front.host}/team/app:v1`)),
        "unavailable",
      );
      expect(error.message).toContain("HTTP 500 after retries");
    } finally {
      await front.stop();
    }
  });

  it("hashes the manifest itself when the registry sends no digest header", async () => {
    const front = await startFaultyFront(registry);
    try {
      front.stripHeaders.add("docker-content-digest");
      const c = client({ env: await cleanEnv() });
      expect((await c.resolveDigest(parseReference(`${front.host}/team/app:v1`))).digest).toBe(skopeoDigest);
      expect(front.log.filter((l) => l.includes("manifests"))).toHaveLength(2); // HEAD, then GET
    } finally {
      await front.stop();
    }
  });

  it("reads Docker v2 schema 2 images as well as OCI ones", async () => {
    const digest = await pushTestImage(registry, "team/docker", "v1", undefined, { format: "v2s2" });
    const c = client({ env: await cleanEnv() });
    const manifest = await c.getManifest(parseReference(`${registry.host}/team/docker:v1`));
    expect(manifest.digest).toBe(digest);
    expect(manifest.mediaType).toBe("application/vnd.docker.distribution.manifest.v2+json");
  });

  it("classifies a refused connection as a network error", async () => {
    const c = client({ env: await cleanEnv(), retries: 0 });
    const error = await expectFailure(c.resolveDigest(parseReference("127.0.0.1:1/team/app:v1")), "network");
    expect(error.message).toContain("connection refused");
  });

  it("goes through HTTP_PROXY for plain HTTP and honours NO_PROXY", async () => {
    const proxy = await startProxy();
    try {
      const port = registry.host.split(":")[1];
      const name = `registry.test:${port}`;
      const env = await cleanEnv({ HTTP_PROXY: proxy.url });
      const c = client({ env, plainHttp: [name] });
      expect((await c.resolveDigest(parseReference(`${name}/team/app:v1`))).digest).toBe(skopeoDigest);
      expect(proxy.targets).toContain(name);
      // A registry the proxy cannot reach: the message names the proxy, never its credentials.
      const secretProxy = proxy.url.replace("http://", "http://puser:Pr0xyPass@");
      const unreachable = client({
        env: { ...env, HTTP_PROXY: secretProxy },
        plainHttp: ["registry.test:1"],
        retries: 0,
      });
      const failed = await expectFailure(
        unreachable.resolveDigest(parseReference("registry.test:1/x:v1")),
        "network",
      );
      expect(failed.message).toContain(`via proxy ${proxy.url}`);
      expect(failed.message).not.toContain("Pr0xyPass");
      // NO_PROXY: the name is only resolvable through the proxy, so a direct attempt fails.
      const direct = client({ env: { ...env, NO_PROXY: ".test" }, plainHttp: [name], retries: 0 });
      await expectFailure(direct.resolveDigest(parseReference(`${name}/team/app:v1`)), "network");
    } finally {
      await proxy.stop();
    }
  });
});

describe("htpasswd registry over TLS", () => {
  let registry: TestRegistry;
  let skopeoDigest: string;
  beforeAll(async () => {
    registry = await startRegistry({ auth: "htpasswd", tls: true });
    skopeoDigest = await pushTestImage(registry, "secure/app", "v2");
  });
  afterAll(() => registry?.stop());

  it("uses credentials from $REGISTRY_AUTH_FILE and a custom CA", async () => {
    const env = await cleanEnv({ REGISTRY_AUTH_FILE: await authFile(registry) });
    const c = client({ env, caFile: registry.caFile! });
    const { digest } = await c.resolveDigest(parseReference(`${registry.host}/secure/app:v2`));
    expect(digest).toBe(skopeoDigest);
  });

  it("accepts the CA from SSL_CERT_FILE and the auth file from --registry-config", async () => {
    const c = client({
      env: await cleanEnv({ SSL_CERT_FILE: registry.caFile! }),
      registryConfig: await authFile(registry),
    });
    expect((await c.resolveDigest(parseReference(`${registry.host}/secure/app:v2`))).digest).toBe(
      skopeoDigest,
    );
  });

  it("refuses an untrusted certificate unless told to skip verification", async () => {
    const env = await cleanEnv({ REGISTRY_AUTH_FILE: await authFile(registry) });
    const error = await expectFailure(
      client({ env }).resolveDigest(parseReference(`${registry.host}/secure/app:v2`)),
      "tls",
    );
    expect(error.message).toContain("certificate not trusted");
    expect(error.hint).toContain("--ca-file");
    const insecure = client({ env, skipTlsVerify: true });
    expect((await insecure.resolveDigest(parseReference(`${registry.host}/secure/app:v2`))).digest).toBe(
      skopeoDigest,
    );
  });

  it("reads containers auth.json under XDG_RUNTIME_DIR and docker config.json", async () => {
    const runtime = await testdir();
    await mkdir(join(runtime, "containers"));
    await writeFile(
      join(runtime, "containers", "auth.json"),
      JSON.stringify({
        auths: {
          [`${registry.host}/secure`]: { auth: Buffer.from(`tester:${PASSWORD}`).toString("base64") },
        },
      }),
    );
    const c1 = client({ env: await cleanEnv({ XDG_RUNTIME_DIR: runtime }), caFile: registry.caFile! });
    expect((await c1.resolveDigest(parseReference(`${registry.host}/secure/app:v2`))).digest).toBe(
      skopeoDigest,
    );

    const docker = await testdir();
    await writeFile(
      join(docker, "config.json"),
      JSON.stringify({ auths: { [`https://${registry.host}`]: { username: "tester", password: PASSWORD } } }),
    );
    const c2 = client({ env: await cleanEnv({ DOCKER_CONFIG: docker }), caFile: registry.caFile! });
    expect((await c2.resolveDigest(parseReference(`${registry.host}/secure/app:v2`))).digest).toBe(
      skopeoDigest,
    );
  });

  it("fails clearly without credentials and with a wrong password, never printing it", async () => {
    const none = client({ env: await cleanEnv(), caFile: registry.caFile! });
    const e1 = await expectFailure(
      none.resolveDigest(parseReference(`${registry.host}/secure/app:v2`)),
      "auth",
    );
    expect(e1.message).toContain(`authentication required by ${registry.host}`);
    const path = await authFile(registry, "wrong-password");
    const wrong = client({ env: await cleanEnv(), registryConfig: path, caFile: registry.caFile! });
    const e2 = await expectFailure(
      wrong.resolveDigest(parseReference(`${registry.host}/secure/app:v2`)),
      "auth",
    );
    expect(e2.message).toContain(`the credentials from ${path} were rejected`);
    expect(e2.message).not.toContain("wrong-password");
  });

  it("tunnels HTTPS through HTTPS_PROXY with CONNECT", async () => {
    const proxy = await startProxy();
    try {
      const name = `registry.test:${registry.host.split(":")[1]}`;
      const auth = Buffer.from(`tester:${PASSWORD}`).toString("base64");
      const dir = await testdir({ "auth.json": JSON.stringify({ auths: { [name]: { auth } } }) });
      const c = client({
        env: await cleanEnv({ HTTPS_PROXY: proxy.url }),
        registryConfig: join(dir, "auth.json"),
        caFile: registry.caFile!,
      });
      expect((await c.resolveDigest(parseReference(`${name}/secure/app:v2`))).digest).toBe(skopeoDigest);
      expect(proxy.targets).toContain(name);
    } finally {
      await proxy.stop();
    }
  });
});

describe("token-auth registry", () => {
  let registry: TestRegistry;
  let skopeoDigest: string;
  beforeAll(async () => {
    registry = await startRegistry({
      auth: "token",
      refreshTokens: { "refresh-abc123": "tester" },
      // "tester" may do anything except touch the private/ repositories.
      grant: (account, repository, actions) => (account && !repository.startsWith("private/") ? actions : []),
    });
    skopeoDigest = await pushTestImage(registry, "tok/app", "v3");
  });
  afterAll(() => registry?.stop());

  it("gets a pull-scoped bearer token with basic credentials", async () => {
    const before = registry.issuer!.requests.length;
    const c = client({ env: await cleanEnv({ REGISTRY_AUTH_FILE: await authFile(registry) }) });
    expect((await c.resolveDigest(parseReference(`${registry.host}/tok/app:v3`))).digest).toBe(skopeoDigest);
    const mine = registry.issuer!.requests.slice(before);
    expect(mine).toEqual([{ method: "GET", account: "tester", scopes: ["repository:tok/app:pull"] }]);
    // The token is cached: a second call needs no new token.
    await c.resolveDigest(parseReference(`${registry.host}/tok/app:v3`));
    expect(registry.issuer!.requests.length).toBe(before + 1);
  });

  it("asks a docker-credential helper named in credHelpers", async () => {
    const bin = await testdir();
    const helper = join(bin, "docker-credential-tsoptest");
    await writeFile(
      helper,
      `#!/bin/sh\nread url\nif [ "$url" = "${registry.host}" ]; then echo '{"ServerURL":"'$url'","Username":"tester","Secret":"${PASSWORD}"}'; else echo "credentials not found in native keychain"; exit 1; fi\n`,
    );
    await chmod(helper, 0o755);
    const docker = await testdir({
      "config.json": JSON.stringify({ credHelpers: { [registry.host]: "tsoptest" } }),
    });
    const c = client({ env: await cleanEnv({ DOCKER_CONFIG: docker, PATH: `${bin}:${process.env.PATH}` }) });
    expect((await c.resolveDigest(parseReference(`${registry.host}/tok/app:v3`))).digest).toBe(skopeoDigest);
  });

  it("exchanges an identity token (refresh token) with the OAuth2 form", async () => {
    const docker = await testdir({
      "config.json": JSON.stringify({ auths: { [registry.host]: { identitytoken: "refresh-abc123" } } }),
    });
    const c = client({ env: await cleanEnv({ DOCKER_CONFIG: docker }) });
    expect((await c.resolveDigest(parseReference(`${registry.host}/tok/app:v3`))).digest).toBe(skopeoDigest);
    expect(registry.issuer!.requests.at(-1)?.method).toBe("POST");
  });

  it("reports a missing credential helper and wrong credentials", async () => {
    const docker = await testdir({ "config.json": JSON.stringify({ credsStore: "does-not-exist" }) });
    const c = client({ env: await cleanEnv({ DOCKER_CONFIG: docker }) });
    await expect(c.resolveDigest(parseReference(`${registry.host}/tok/app:v3`))).rejects.toThrow(
      "credential helper docker-credential-does-not-exist is not installed",
    );
    const wrong = client({ env: await cleanEnv(), registryConfig: await authFile(registry, "nope-nope") });
    const error = await expectFailure(
      wrong.resolveDigest(parseReference(`${registry.host}/tok/app:v3`)),
      "auth",
    );
    expect(error.message).not.toContain("nope-nope");
  });

  it("reports a repository the account may not read as access denied", async () => {
    const c = client({ env: await cleanEnv({ REGISTRY_AUTH_FILE: await authFile(registry) }) });
    const error = await expectFailure(
      c.resolveDigest(parseReference(`${registry.host}/private/app:v1`)),
      "denied",
    );
    expect(error.message).toContain(`access denied to image ${registry.host}/private/app:v1`);
  });

  it("is refused anonymously", async () => {
    const c = client({ env: await cleanEnv() });
    await expectFailure(c.resolveDigest(parseReference(`${registry.host}/tok/app:v3`)), "auth");
  });

  it("pushes with a push-scoped token", async () => {
    const before = registry.issuer!.requests.length;
    const c = client({ env: await cleanEnv({ REGISTRY_AUTH_FILE: await authFile(registry) }) });
    await c.uploadBlob(registry.host, "tok/pushed", Buffer.from("layer"));
    const scopes = registry.issuer!.requests.slice(before).flatMap((r) => r.scopes);
    expect(scopes).toContain("repository:tok/pushed:pull,push");
  });
});
