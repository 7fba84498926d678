// A real OCI registry for tests: Debian's `docker-registry` (CNCF distribution) on 127.0.0.1 with a
// random port and filesystem storage in a temp dir, in three variants (open, htpasswd basic auth,
// token auth through test/support/token-issuer.ts), optionally behind TLS with a generated CA.
// Images are put in with `skopeo copy` from OCI layouts built here, independently of tsop's code.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { execa } from "execa";
import { pack } from "tar-stream";
import { startTokenIssuer, type TokenIssuer } from "./token-issuer.js";

export type RegistryAuth = "none" | "htpasswd" | "token";

export interface RegistryOptions {
  auth?: RegistryAuth;
  /** Serve HTTPS with a certificate for 127.0.0.1, localhost and registry.test, signed by `caFile`. */
  tls?: boolean;
  /** user → password for htpasswd and token variants (default: { tester: "s3cret-pass" }). */
  users?: Record<string, string>;
  /** Token variant: which actions a caller gets on a repository. */
  grant?: (account: string | undefined, repository: string, actions: string[]) => string[];
  refreshTokens?: Record<string, string>;
}

export interface TestRegistry {
  /** host:port, e.g. "127.0.0.1:41234" */
  host: string;
  url: string;
  auth: RegistryAuth;
  tls: boolean;
  /** The CA that signed the registry certificate (TLS variant only). */
  caFile?: string;
  users: Record<string, string>;
  issuer?: TokenIssuer;
  /** Working dir (config, storage, certificates). */
  dir: string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export interface Certificate {
  certPath: string;
  keyPath: string;
}

/** A CA and a server certificate signed by it (openssl), for TLS registries. */
export async function generateTlsCertificates(
  dir: string,
): Promise<{ ca: Certificate; server: Certificate }> {
  const ca = { certPath: join(dir, "ca.crt"), keyPath: join(dir, "ca.key") };
  const server = { certPath: join(dir, "server.crt"), keyPath: join(dir, "server.key") };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await execa(
    "openssl",
    ["req", "-x509", ...ec, "-keyout", ca.keyPath, "-out", ca.certPath, "-days", "2"].concat([
      "-subj",
      "/CN=tsop test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
    ]),
  );
  const csr = join(dir, "server.csr");
  await execa("openssl", [
    "req",
    "-new",
    ...ec,
    "-keyout",
    server.keyPath,
    "-out",
    csr,
    "-subj",
    "/CN=registry",
  ]);
  const ext = join(dir, "server.ext");
  await writeFile(
    ext,
    "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:registry.test\nextendedKeyUsage=serverAuth\n",
  );
  await execa("openssl", [
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    ca.certPath,
    "-CAkey",
    ca.keyPath,
    "-CAcreateserial",
    "-out",
    server.certPath,
    "-days",
    "2",
    "-extfile",
    ext,
  ]);
  return { ca, server };
}

/** A self-signed EC certificate for the token issuer (its public key is what the registry trusts). */
export async function generateSigningCertificate(dir: string): Promise<Certificate> {
  const cert = { certPath: join(dir, "signer.crt"), keyPath: join(dir, "signer.key") };
  await execa("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    cert.keyPath,
    "-out",
    cert.certPath,
    "-days",
    "2",
    "-subj",
    "/CN=tsop test token issuer",
  ]);
  return cert;
}

export async function startRegistry(options: RegistryOptions = {}): Promise<TestRegistry> {
  const auth = options.auth ?? "none";
  const users = options.users ?? { tester: "s3cret-pass" };
  const dir = await mkdtemp(join(tmpdir(), "tsop-registry-"));
  await mkdir(join(dir, "data"));
  const config: string[] = [
    "version: 0.1",
    "log:",
    "  level: info",
    "  accesslog:",
    "    disabled: true",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${join(dir, "data")}`,
    "  delete:",
    "    enabled: true",
    "  maintenance:",
    "    uploadpurging:",
    "      enabled: false",
    "http:",
    "  addr: 127.0.0.1:0",
    `  secret: ${randomBytes(16).toString("hex")}`,
  ];
  let caFile: string | undefined;
  if (options.tls) {
    const { ca, server } = await generateTlsCertificates(dir);
    caFile = ca.certPath;
    config.push("  tls:", `    certificate: ${server.certPath}`, `    key: ${server.keyPath}`);
  }
  let issuer: TokenIssuer | undefined;
  if (auth === "htpasswd") {
    const lines: string[] = [];
    for (const [user, password] of Object.entries(users)) {
      const { stdout } = await execa("htpasswd", ["-Bbn", user, password]);
      lines.push(stdout.trim());
    }
    await writeFile(join(dir, "htpasswd"), `${lines.join("\n")}\n`);
    config.push("auth:", "  htpasswd:", "    realm: tsop-test", `    path: ${join(dir, "htpasswd")}`);
  } else if (auth === "token") {
    const signer = await generateSigningCertificate(dir);
    issuer = await startTokenIssuer({
      ...signer,
      issuer: "tsop-test-issuer",
      service: "tsop-test-registry",
      users,
      ...(options.grant ? { grant: options.grant } : {}),
      ...(options.refreshTokens ? { refreshTokens: options.refreshTokens } : {}),
    });
    config.push(
      "auth:",
      "  token:",
      `    realm: ${issuer.realm}`,
      "    service: tsop-test-registry",
      "    issuer: tsop-test-issuer",
      `    rootcertbundle: ${signer.certPath}`,
    );
  }
  await writeFile(join(dir, "config.yml"), `${config.join("\n")}\n`);

  const child = spawn("docker-registry", ["serve", join(dir, "config.yml")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  const host = await new Promise<string>((resolve, reject) => {
    let log = "";
    const onData = (chunk: Buffer) => {
      log += chunk.toString("utf8");
      const match = /listening on (127\.0\.0\.1:\d+)/.exec(log);
      if (match?.[1]) {
        child.stderr?.off("data", onData);
        child.stdout?.off("data", onData);
        child.stderr?.resume();
        child.stdout?.resume();
        resolve(match[1]);
      }
    };
    child.stderr?.on("data", onData);
    child.stdout?.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`docker-registry exited (${code}) before listening:\n${log}`)),
    );
  });
  const tls = Boolean(options.tls);
  return {
    host,
    url: `${tls ? "https" : "http"}://${host}`,
    auth,
    tls,
    ...(caFile ? { caFile } : {}),
    users,
    ...(issuer ? { issuer } : {}),
    dir,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      running.delete(child);
      await issuer?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OCI layouts built by hand (independently of src/images) and skopeo as the reference client.

export interface LayerFile {
  path: string;
  content?: string | Buffer;
  type?: "file" | "directory" | "symlink" | "link" | "character-device" | "fifo";
  linkname?: string;
  mode?: number;
  /** Declared size differing from the content (for size-limit tests). */
}

export async function tarLayer(files: readonly LayerFile[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on("data", (c: unknown) => {
    chunks.push(c as Buffer);
  });
  const done = new Promise<void>((resolve, reject) => {
    p.on("end", resolve);
    p.on("error", reject);
  });
  for (const f of files) {
    const type = f.type ?? "file";
    const header = {
      name: f.path,
      type,
      mode: f.mode ?? (type === "directory" ? 0o755 : 0o644),
      mtime: new Date(0),
      ...(f.linkname !== undefined ? { linkname: f.linkname } : {}),
    };
    if (type === "file") p.entry(header, Buffer.from(f.content ?? ""));
    else p.entry(header);
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

const sha256 = (data: Buffer | string) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

export interface LayoutImage {
  /** Files of each layer, in order. */
  layers: ReadonlyArray<readonly LayerFile[]>;
  labels?: Record<string, string>;
  architecture?: string;
  /** Ref name in index.json (skopeo: oci:<dir>:<tag>). */
  tag?: string;
  /** Layers uncompressed (plain tar media type). */
  uncompressed?: boolean;
  /** Makes otherwise equal images distinct (a label would work too). */
  salt?: string;
  /** Extra run settings for the config (Entrypoint, Env, ...). */
  runConfig?: Record<string, unknown>;
}

/** Writes an OCI image layout holding one image; returns the manifest digest. */
export async function writeOciLayout(dir: string, image: LayoutImage): Promise<string> {
  const m = await writeImageBlobs(dir, image);
  await writeIndex(dir, image.tag ?? "latest", {
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    ...m,
  });
  return m.digest;
}

/** Writes an OCI layout whose tag names an image index with one image per architecture. */
export async function writeOciLayoutIndex(
  dir: string,
  tag: string,
  images: readonly LayoutImage[],
): Promise<string> {
  const manifests = [];
  for (const image of images) {
    const m = await writeImageBlobs(dir, image);
    manifests.push({
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      ...m,
      platform: { architecture: image.architecture ?? "amd64", os: "linux" },
    });
  }
  const index = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests }),
  );
  const digest = sha256(index);
  await writeFile(join(dir, "blobs", "sha256", digest.slice(7)), index);
  await writeIndex(dir, tag, {
    mediaType: "application/vnd.oci.image.index.v1+json",
    digest,
    size: index.length,
  });
  return digest;
}

async function writeIndex(
  dir: string,
  tag: string,
  descriptor: { mediaType: string; digest: string; size: number },
) {
  await writeFile(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  await writeFile(
    join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ ...descriptor, annotations: { "org.opencontainers.image.ref.name": tag } }],
    }),
  );
}

async function writeImageBlobs(dir: string, image: LayoutImage): Promise<{ digest: string; size: number }> {
  await mkdir(join(dir, "blobs", "sha256"), { recursive: true });
  const put = async (data: Buffer) => {
    const digest = sha256(data);
    await writeFile(join(dir, "blobs", "sha256", digest.slice(7)), data);
    return { digest, size: data.length };
  };
  const layers = [];
  const diffIds = [];
  for (const files of image.layers) {
    const tar = await tarLayer(files);
    diffIds.push(sha256(tar));
    const blob = image.uncompressed ? tar : gzipSync(tar);
    layers.push({
      mediaType: image.uncompressed
        ? "application/vnd.oci.image.layer.v1.tar"
        : "application/vnd.oci.image.layer.v1.tar+gzip",
      ...(await put(blob)),
    });
  }
  const config = {
    architecture: image.architecture ?? "amd64",
    os: "linux",
    config: {
      ...image.runConfig,
      Labels: { ...(image.labels ?? {}), ...(image.salt ? { "test.salt": image.salt } : {}) },
    },
    rootfs: { type: "layers", diff_ids: diffIds },
  };
  const configBlob = await put(Buffer.from(JSON.stringify(config)));
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", ...configBlob },
      layers,
    }),
  );
  return put(manifest);
}

/** Copies an OCI layout's tag into the registry with skopeo (--all keeps every platform of an index). */
export async function skopeoCopyLayout(
  registry: TestRegistry,
  layout: string,
  tag: string,
  destination: string,
  auth: SkopeoAuth = {},
): Promise<void> {
  await execa("skopeo", [
    "copy",
    "--quiet",
    "--all",
    ...destFlags(registry, "dest", auth),
    `oci:${layout}:${tag}`,
    `docker://${registry.host}/${destination}`,
  ]);
}

export interface SkopeoAuth {
  /** Manifest format skopeo writes (default: OCI, as in the layout). */
  format?: "oci" | "v2s2";
  creds?: string;
  authfile?: string;
  caDir?: string;
}

function destFlags(registry: TestRegistry, prefix: "dest" | "src" | "", auth: SkopeoAuth): string[] {
  const p = prefix ? `--${prefix}-` : "--";
  const flags: string[] = [];
  if (!registry.tls) flags.push(`${p}tls-verify=false`);
  else if (auth.caDir) flags.push(`${p}cert-dir=${auth.caDir}`);
  else flags.push(`${p}tls-verify=false`);
  const creds = auth.creds ?? defaultCreds(registry);
  if (creds) flags.push(`${p}creds=${creds}`);
  if (auth.authfile) flags.push(`--authfile=${auth.authfile}`);
  return flags;
}

function defaultCreds(registry: TestRegistry): string | undefined {
  if (registry.auth === "none") return undefined;
  const [user, password] = Object.entries(registry.users)[0] ?? [];
  return user ? `${user}:${password}` : undefined;
}

/** Builds an OCI layout in a temp dir and copies it to <registry>/<repository>:<tag> with skopeo. */
export async function pushTestImage(
  registry: TestRegistry,
  repository: string,
  tag: string,
  image: LayoutImage = { layers: [[{ path: "hello.txt", content: "hello" }]] },
  auth: SkopeoAuth = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-layout-"));
  try {
    await writeOciLayout(dir, { ...image, tag: "t" });
    await execa("skopeo", [
      "copy",
      "--quiet",
      ...(auth.format ? ["--format", auth.format] : []),
      ...destFlags(registry, "dest", auth),
      `oci:${dir}:t`,
      `docker://${registry.host}/${repository}:${tag}`,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return (await skopeoInspect(registry, `${repository}:${tag}`, auth)).Digest;
}

export interface SkopeoInspect {
  Name: string;
  Digest: string;
  Labels: Record<string, string> | null;
  Architecture: string;
  Os: string;
  Layers: string[];
}

export async function skopeoInspect(
  registry: TestRegistry,
  reference: string,
  auth: SkopeoAuth = {},
): Promise<SkopeoInspect> {
  const { stdout } = await execa("skopeo", [
    "inspect",
    ...destFlags(registry, "", auth),
    `docker://${registry.host}/${reference}`,
  ]);
  return JSON.parse(stdout) as SkopeoInspect;
}

export async function skopeoInspectRaw(registry: TestRegistry, reference: string): Promise<string> {
  const { stdout } = await execa("skopeo", [
    "inspect",
    "--raw",
    ...destFlags(registry, "", {}),
    `docker://${registry.host}/${reference}`,
  ]);
  return stdout;
}

// ---------------------------------------------------------------------------------------------
// Network helpers: a forward proxy (CONNECT + absolute-URI requests) and a fault-injecting front.

export interface TestProxy {
  url: string;
  /** host:port targets seen, in order. */
  targets: string[];
  stop(): Promise<void>;
}

/**
 * A forward proxy that maps `registry.test` (unresolvable elsewhere) to 127.0.0.1, so a request
 * reaching a registry by that name proves it went through the proxy.
 */
export async function startProxy(): Promise<TestProxy> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const mapHost = (host: string) => (host === "registry.test" ? "127.0.0.1" : host);
  const server: Server = createServer((req, res) => {
    const target = new URL(req.url ?? "/");
    targets.push(target.host);
    const upstream = httpRequest(
      {
        host: mapHost(target.hostname),
        port: target.port,
        method: req.method,
        path: target.pathname + target.search,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    const [host = "", port = "443"] = (req.url ?? "").split(":");
    targets.push(req.url ?? "");
    const upstream = netConnect(Number(port), mapHost(host), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", drop);
    client.on("error", drop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Fault {
  method?: string;
  path: RegExp;
  status: number;
  count: number;
  retryAfterSeconds?: number;
}

export interface FaultyFront {
  host: string;
  faults: Fault[];
  /** Response headers to drop (e.g. docker-content-digest). */
  stripHeaders: Set<string>;
  /** Requests seen: "METHOD path". */
  log: string[];
  stop(): Promise<void>;
}

/** A plain-HTTP reverse proxy in front of a plain-HTTP registry that fails matching requests `count` times. */
export async function startFaultyFront(registry: TestRegistry): Promise<FaultyFront> {
  const faults: Fault[] = [];
  const log: string[] = [];
  const stripHeaders = new Set<string>();
  const [upHost, upPort] = registry.host.split(":");
  const server = createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    const fault = faults.find(
      (f) => f.count > 0 && f.path.test(req.url ?? "") && (!f.method || f.method === req.method),
    );
    if (fault) {
      fault.count--;
      req.resume();
      res.writeHead(fault.status, {
        "content-type": "application/json",
        ...(fault.retryAfterSeconds !== undefined ? { "retry-after": String(fault.retryAfterSeconds) } : {}),
      });
      res.end(JSON.stringify({ errors: [{ code: "UNAVAILABLE", message: "injected fault" }] }));
      return;
    }
    const upstream = httpRequest(
      { host: upHost, port: Number(upPort), method: req.method, path: req.url, headers: req.headers },
      (up) => {
        const headers = { ...up.headers };
        for (const name of stripHeaders) delete headers[name];
        // Upload locations point at the registry itself; keep the client on the front.
        if (typeof headers.location === "string")
          headers.location = headers.location.replace(registry.host, front);
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const front = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host: front,
    faults,
    stripHeaders,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a file as text (tests compare bundle files before/after). */
export const readText = (path: string) => readFile(path, "utf8");
