#!/usr/bin/env node
// Digest resolution benchmark (issue 7): resolve 50 distinct images against a local docker-registry
// with tsop's resolver, concurrently (the default) and sequentially (concurrency 1) in the same run.
// Each round uses a fresh client, so it pays what `tsop bundle --use-image-digests` pays: the /v2/
// ping, credentials lookup, one bearer token per repository (token variant) and one HEAD per image.
// A third variant puts BENCH_LATENCY_MS (default 20) of delay on every request to the registry and
// token service, as a registry across a network would have; that is where concurrency pays.
// Goal: under 1 s concurrently. Needs `npm run build` and Debian's docker-registry and openssl.
// Run: node bench/images-resolve.js   (BENCH_IMAGES, BENCH_ROUNDS, BENCH_CONCURRENCY to vary)
import { spawn, spawnSync } from "node:child_process";
import { createPrivateKey, randomBytes, sign, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { RegistryClient, resolveDigests } = await import("../dist/oci/index.js");

const IMAGES = Number(process.env.BENCH_IMAGES ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LATENCY = Number(process.env.BENCH_LATENCY_MS ?? 20);
const USER = "bench";
const PASSWORD = "bench-password";

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A minimal token issuer (ES256 JWTs with the signing certificate in x5c), as in test/support. */
async function startIssuer(dir, latency = 0) {
  const keyPath = join(dir, "signer.key");
  const certPath = join(dir, "signer.crt");
  spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyPath,
      "-out",
      certPath,
      "-days",
      "1",
      "-subj",
      "/CN=bench issuer",
    ],
    { stdio: "ignore" },
  );
  const key = createPrivateKey(readFileSync(keyPath));
  const x5c = [new X509Certificate(readFileSync(certPath)).raw.toString("base64")];
  const b64 = (v) => Buffer.from(v).toString("base64url");
  let requests = 0;
  const server = createServer(async (req, res) => {
    requests++;
    if (latency) await new Promise((resolve) => setTimeout(resolve, latency));
    const url = new URL(req.url, "http://x");
    const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
    if (req.headers.authorization !== expected) {
      res.writeHead(401).end();
      return;
    }
    const access = url.searchParams.getAll("scope").map((scope) => {
      const [type, name, actions] = scope.split(":");
      return { type, name, actions: actions.split(",") };
    });
    const now = Math.floor(Date.now() / 1000);
    const header = b64(JSON.stringify({ alg: "ES256", typ: "JWT", x5c }));
    const claims = b64(
      JSON.stringify({
        iss: "bench-issuer",
        sub: USER,
        aud: "bench-registry",
        exp: now + 300,
        nbf: now - 10,
        iat: now,
        jti: randomBytes(8).toString("hex"),
        access,
      }),
    );
    const signature = sign("sha256", Buffer.from(`${header}.${claims}`), { key, dsaEncoding: "ieee-p1363" });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ token: `${header}.${claims}.${b64(signature)}`, expires_in: 300 }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    realm: `http://127.0.0.1:${server.address().port}/token`,
    certPath,
    server,
    count: () => requests,
  };
}

async function startRegistry(dir, issuer) {
  const config = [
    "version: 0.1",
    "log: {level: info, accesslog: {disabled: true}}",
    `storage: {filesystem: {rootdirectory: ${join(dir, "data")}}}`,
    `http: {addr: "127.0.0.1:0", secret: ${randomBytes(8).toString("hex")}}`,
  ];
  if (issuer) {
    config.push(
      `auth: {token: {realm: "${issuer.realm}", service: bench-registry, issuer: bench-issuer, rootcertbundle: ${issuer.certPath}}}`,
    );
  }
  writeFileSync(join(dir, "config.yml"), `${config.join("\n")}\n`);
  const child = spawn("docker-registry", ["serve", join(dir, "config.yml")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const host = await new Promise((resolve, reject) => {
    let log = "";
    const onData = (chunk) => {
      log += chunk;
      const match = /listening on (127\.0\.0\.1:\d+)/.exec(log);
      if (match) resolve(match[1]);
    };
    child.stderr.on("data", onData);
    child.stdout.on("data", onData);
    child.once("exit", (code) => reject(new Error(`docker-registry exited (${code}):\n${log}`)));
  });
  return { host, child };
}

/** A reverse proxy adding `ms` before forwarding each request (a registry across a network). */
async function delayFront(host, ms) {
  const [hostname, port] = host.split(":");
  const server = createServer((req, res) => {
    setTimeout(() => {
      const upstream = request(
        { host: hostname, port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(upstream);
    }, ms);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { host: `127.0.0.1:${server.address().port}`, server };
}

/** Pushes IMAGES tiny distinct images (one shared layer, a config per image) with tsop's client. */
async function seed(host, env) {
  const client = new RegistryClient({ env, plainHttp: [host] });
  const layer = Buffer.from("bench layer");
  const one = async (i) => {
    const repository = `bench/image-${String(i).padStart(2, "0")}`;
    const config = Buffer.from(
      JSON.stringify({ architecture: "amd64", os: "linux", config: { Labels: { i: String(i) } } }),
    );
    const l = await client.uploadBlob(host, repository, layer);
    const c = await client.uploadBlob(host, repository, config);
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: c.digest, size: c.size },
        layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: l.digest, size: l.size }],
      }),
    );
    await client.putManifest(host, repository, "v1", manifest, "application/vnd.oci.image.manifest.v1+json");
    return `${host}/${repository}:v1`;
  };
  const refs = [];
  for (let i = 0; i < IMAGES; i += 10) {
    refs.push(...(await Promise.all(Array.from({ length: Math.min(10, IMAGES - i) }, (_, k) => one(i + k)))));
  }
  client.close();
  return refs;
}

async function measure(refs, env, host, concurrency) {
  const samples = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    const results = await resolveDigests(refs, { env, plainHttp: [host], concurrency });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    const failed = results.filter((r) => "error" in r);
    if (failed.length) throw new Error(`${failed.length} failed: ${failed[0].error.message}`);
  }
  return median(samples);
}

const rows = [];
for (const variant of ["open", "token", `token, +${LATENCY} ms per request`]) {
  const dir = mkdtempSync(join(tmpdir(), "tsop-bench-"));
  const latency = variant.startsWith("token,") ? LATENCY : 0;
  const issuer = variant.startsWith("token") ? await startIssuer(dir, latency) : undefined;
  const registry = await startRegistry(dir, issuer);
  const front = latency ? await delayFront(registry.host, latency) : undefined;
  try {
    const auth = join(dir, "auth.json");
    const encoded = Buffer.from(`${USER}:${PASSWORD}`).toString("base64");
    const host = front?.host ?? registry.host;
    const entries = { [registry.host]: { auth: encoded }, [host]: { auth: encoded } };
    writeFileSync(auth, JSON.stringify({ auths: entries }));
    const env = { HOME: dir, REGISTRY_AUTH_FILE: auth, PATH: process.env.PATH };
    const refs = (await seed(registry.host, env)).map((r) => r.replace(registry.host, host));
    await measure(refs.slice(0, 5), env, host, CONCURRENCY); // warm-up (JIT, registry caches)
    const sequential = await measure(refs, env, host, 1);
    const concurrent = await measure(refs, env, host, CONCURRENCY);
    rows.push({ variant, sequential, concurrent });
  } finally {
    registry.child.kill("SIGTERM");
    issuer?.server.close();
    front?.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`Resolving ${IMAGES} distinct images (fresh client per round, median of ${ROUNDS} rounds)\n`);
console.log(`| registry | sequential (1) | concurrent (${CONCURRENCY}) | speed-up |`);
console.log("|---|---:|---:|---:|");
for (const r of rows) {
  console.log(
    `| ${r.variant} | ${r.sequential.toFixed(0)} ms | ${r.concurrent.toFixed(0)} ms | ${(r.sequential / r.concurrent).toFixed(1)}x |`,
  );
}
const worst = Math.max(...rows.map((r) => r.concurrent));
console.log(
  `\nGoal: under 1000 ms concurrently: ${worst < 1000 ? "met" : "NOT met"} (worst ${worst.toFixed(0)} ms)`,
);
process.exitCode = worst < 1000 ? 0 : 1;
