// The OCI distribution API client: one session per registry (scheme, auth challenge, credentials,
// token cache), manifests (HEAD/GET/PUT) and blobs (HEAD/GET with digest verification, monolithic
// and chunked uploads, cross-repository mounts). Auth follows the registry's WWW-Authenticate
// challenge: anonymous, Basic, or Bearer tokens requested with the scopes each call needs.
import { readdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseDuration } from "../common/duration.js";
import { UsageError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import { type Challenge, parseChallenges } from "./challenge.js";
import { type Credential, credentialCache, findCredentials } from "./credentials.js";
import { digestOf, sha256Digest } from "./digest.js";
import { RegistryError } from "./errors.js";
import { MANIFEST_ACCEPT, type Descriptor } from "./media-types.js";
import * as msg from "./messages.js";
import { MIRRORS_ENV, parseMirrors, pullLocations, type RegistryMirror } from "./mirrors.js";
import {
  apiHost,
  digestProblem,
  type ImageReference,
  isLoopbackRegistry,
  manifestSelector,
} from "./reference.js";
import {
  ConnectionError,
  DEFAULT_OPERATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type HttpRequest,
  type HttpResponse,
  ResponseTooLargeError,
  Transport,
} from "./transport.js";

export interface RegistryClientOptions {
  /** A docker config.json / containers auth.json to use instead of the default chain. */
  registryConfig?: string;
  /** Do not verify TLS certificates (every registry). */
  skipTlsVerify?: boolean;
  /** Use plain HTTP: for every registry (true) or for the listed host[:port] names. */
  plainHttp?: boolean | string[];
  /** PEM file of extra CA certificates (SSL_CERT_FILE is also honoured). */
  caFile?: string;
  env?: NodeJS.ProcessEnv;
  /** Parallel connections per registry (default 8). */
  concurrency?: number;
  retries?: number;
  backoffMs?: number;
  timeoutMs?: number;
  /** Longest one request may take (default $TSOP_REGISTRY_REQUEST_TIMEOUT, else 5 minutes). */
  requestTimeoutMs?: number;
  /** Longest this client's requests may take together (default $TSOP_REGISTRY_OPERATION_TIMEOUT, else 15 minutes). */
  operationTimeoutMs?: number;
  reporter?: Reporter;
  /** Mirrors for pulls (default: $TSOP_REGISTRY_MIRRORS; mirrors.ts). */
  mirrors?: RegistryMirror[];
}

function durationFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const ms = parseDuration(raw, name);
  if (ms <= 0) throw new UsageError(`${name}="${raw}" must be a positive duration such as 90s or 10m`);
  return ms;
}

export interface ManifestResult {
  digest: string;
  mediaType: string;
  size: number;
  body: Buffer;
  json: Record<string, unknown>;
}

export interface UploadResult {
  digest: string;
  size: number;
  how: "exists" | "mounted" | "uploaded";
}

export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const DEFAULT_CHUNK = 8 * 1024 * 1024;

interface Session {
  registry: string;
  base: URL;
  challenge: Challenge | undefined;
  /** Per repository: auth files may hold credentials for registry/namespace/repo keys. */
  credentials: Map<string, Promise<Credential | undefined>>;
  tokens: Map<string, Promise<{ token: string; expiresAt: number }>>;
}

const repositoryScope = (repository: string, actions: string) => `repository:${repository}:${actions}`;

export class RegistryClient {
  private readonly env: NodeJS.ProcessEnv;
  private readonly transport: Transport;
  private readonly sessions = new Map<string, Promise<Session>>();
  private readonly hostCa = new Map<string, string[]>();
  private globalCa: string[] | undefined;
  private readonly secrets = new Set<string>();
  private readonly credentialCache = credentialCache();
  private readonly mirrors: RegistryMirror[];

  constructor(private readonly options: RegistryClientOptions = {}) {
    this.env = options.env ?? process.env;
    this.mirrors = options.mirrors ?? parseMirrors(this.env[MIRRORS_ENV]);
    this.transport = new Transport({
      env: this.env,
      rejectUnauthorized: !options.skipTlsVerify,
      extraCa: (host) => [...(this.globalCa ?? []), ...(this.hostCa.get(host) ?? [])],
      timeoutMs: options.timeoutMs ?? 30_000,
      requestDeadlineMs:
        options.requestTimeoutMs ??
        durationFromEnv(this.env, "TSOP_REGISTRY_REQUEST_TIMEOUT", DEFAULT_REQUEST_TIMEOUT_MS),
      operationDeadlineMs:
        options.operationTimeoutMs ??
        durationFromEnv(this.env, "TSOP_REGISTRY_OPERATION_TIMEOUT", DEFAULT_OPERATION_TIMEOUT_MS),
      retries: options.retries ?? 4,
      backoffMs: options.backoffMs ?? 200,
      maxSockets: options.concurrency ?? 8,
      onRetry: ({ url, attempt, delayMs, reason }) =>
        options.reporter?.debug(msg.retrying(url.host, reason, attempt, delayMs)),
    });
  }

  close(): void {
    this.transport.close();
  }

  /** Replaces every known secret in a message (defence in depth: messages are built without them). */
  private redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (secret.length >= 4) out = out.split(secret).join("***");
    return out;
  }

  private fail(kind: RegistryError["kind"], message: string, hint?: string, status?: number): RegistryError {
    return new RegistryError(kind, this.redact(message), {
      ...(hint ? { hint: this.redact(hint) } : {}),
      ...(status !== undefined ? { status } : {}),
    });
  }

  private usesPlainHttp(registry: string): boolean {
    const plain = this.options.plainHttp;
    if (plain === true) return true;
    if (!Array.isArray(plain)) return false;
    return plain.some((entry) => {
      const e = entry
        .trim()
        .toLowerCase()
        .replace(/^https?:\/\//, "")
        .replace(/\/+$/, "");
      return e === registry.toLowerCase() || e === apiHost(registry).toLowerCase();
    });
  }

  private async loadCertificates(host: string): Promise<void> {
    if (this.globalCa === undefined) {
      const files = [this.options.caFile, this.env.SSL_CERT_FILE].filter((f): f is string => Boolean(f));
      const pems: string[] = [];
      for (const file of files) {
        try {
          pems.push(await readFile(file, "utf8"));
        } catch (error) {
          throw this.fail("tls", msg.caFileUnreadable(file, (error as Error).message));
        }
      }
      this.globalCa = pems;
    }
    if (this.hostCa.has(host)) return;
    const home = this.env.HOME || homedir();
    const dirs = [
      join("/etc/containers/certs.d", host),
      join("/etc/docker/certs.d", host),
      join(this.env.XDG_CONFIG_HOME || join(home, ".config"), "containers", "certs.d", host),
    ];
    const pems: string[] = [];
    for (const dir of dirs) {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names.filter((n) => n.endsWith(".crt")).sort()) {
        pems.push(await readFile(join(dir, name), "utf8"));
      }
    }
    this.hostCa.set(host, pems);
  }

  private connectionFailure(registry: string, url: URL, error: unknown): RegistryError {
    if (error instanceof RegistryError) return error;
    if (error instanceof ResponseTooLargeError) {
      return this.fail("too-large", msg.responseTooLarge(registry, url.pathname, error.limit));
    }
    if (error instanceof ConnectionError) {
      const m = msg.connectionFailed(registry, url.origin, error.kind, error.code, error.message, error.via);
      return this.fail(error.kind, m.message, m.hint);
    }
    throw error;
  }

  /** GET /v2/ once per registry: picks the scheme and learns the auth challenge. */
  private session(registry: string): Promise<Session> {
    let session = this.sessions.get(registry);
    if (!session) {
      session = this.openSession(registry);
      session.catch(() => this.sessions.delete(registry));
      this.sessions.set(registry, session);
    }
    return session;
  }

  private async openSession(registry: string): Promise<Session> {
    const host = apiHost(registry);
    await this.loadCertificates(host);
    const plain = this.usesPlainHttp(registry);
    const ping = (scheme: "https" | "http") =>
      this.transport.send({ method: "GET", url: new URL(`${scheme}://${host}/v2/`), maxBytes: 64 * 1024 });
    let scheme: "https" | "http" = plain ? "http" : "https";
    let response: HttpResponse;
    try {
      response = await ping(scheme);
    } catch (error) {
      // Like docker: a registry on this machine may speak plain HTTP without being listed.
      const notTls =
        error instanceof ConnectionError && /wrong version number|packet length/i.test(error.message);
      if (scheme !== "https" || !notTls || !isLoopbackRegistry(registry)) {
        throw this.connectionFailure(registry, new URL(`${scheme}://${host}/v2/`), error);
      }
      this.options.reporter?.debug(msg.loopbackFallback(registry));
      scheme = "http";
      try {
        response = await ping(scheme);
      } catch (again) {
        throw this.connectionFailure(registry, new URL(`${scheme}://${host}/v2/`), again);
      }
    }
    const base = new URL(`${scheme}://${host}`);
    if (response.status === 404) throw this.fail("protocol", msg.notARegistry(registry, base.origin));
    let challenge: Challenge | undefined;
    if (response.status === 401) {
      challenge = parseChallenges(response.headers["www-authenticate"]).find(
        (c) => c.scheme === "bearer" || c.scheme === "basic",
      );
      if (!challenge) throw this.fail("protocol", msg.unknownChallenge(registry));
    } else if (response.status >= 400) {
      throw this.statusError(registry, response, `${base.origin}/v2/`, undefined);
    }
    return { registry, base, challenge, credentials: new Map(), tokens: new Map() };
  }

  private credential(session: Session, repository: string): Promise<Credential | undefined> {
    let credential = session.credentials.get(repository);
    if (!credential) {
      credential = findCredentials(session.registry, repository, {
        ...(this.options.registryConfig ? { registryConfig: this.options.registryConfig } : {}),
        env: this.env,
        debug: (m) => this.options.reporter?.debug(m),
        cache: this.credentialCache,
      }).then((c) => {
        for (const s of [c?.password, c?.identityToken]) if (s) this.secrets.add(s);
        return c;
      });
      session.credentials.set(repository, credential);
    }
    return credential;
  }

  private async token(session: Session, repository: string, scopes: string[]): Promise<string> {
    const key = [...new Set(scopes)].sort().join(" ");
    const cached = session.tokens.get(key);
    if (cached) {
      const t = await cached.catch(() => undefined);
      if (t && t.expiresAt > Date.now() + 10_000) return t.token;
      session.tokens.delete(key);
    }
    const pending = this.fetchToken(session, repository, key.split(" "));
    session.tokens.set(key, pending);
    pending.catch(() => session.tokens.delete(key));
    return (await pending).token;
  }

  private async fetchToken(
    session: Session,
    repository: string,
    scopes: string[],
  ): Promise<{ token: string; expiresAt: number }> {
    const params = session.challenge?.params ?? {};
    if (!params.realm) throw this.fail("protocol", msg.unknownChallenge(session.registry));
    let realm: URL;
    try {
      realm = new URL(params.realm);
    } catch {
      throw this.fail("protocol", msg.unknownChallenge(session.registry));
    }
    const credential = await this.credential(session, repository);
    let request: HttpRequest;
    if (credential?.identityToken) {
      const form = new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: credential.identityToken,
        client_id: "tsop",
        ...(params.service ? { service: params.service } : {}),
        scope: scopes.join(" "),
      });
      request = {
        method: "POST",
        url: realm,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: Buffer.from(form.toString()),
      };
    } else {
      const url = new URL(realm);
      if (params.service) url.searchParams.set("service", params.service);
      for (const scope of scopes) url.searchParams.append("scope", scope);
      const headers: Record<string, string> = {};
      if (credential?.username !== undefined && credential.password !== undefined) {
        headers.authorization = `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString("base64")}`;
      }
      request = { method: "GET", url, headers };
    }
    let response: HttpResponse;
    try {
      response = await this.transport.send({ ...request, maxBytes: 1024 * 1024 });
    } catch (error) {
      throw this.connectionFailure(session.registry, request.url, error);
    }
    if (response.status === 401 || response.status === 403) {
      const m = msg.authFailed(session.registry, credential?.source);
      throw this.fail("auth", m.message, m.hint, response.status);
    }
    if (response.status !== 200) {
      throw this.fail("protocol", msg.tokenServiceFailed(session.registry, realm.origin, response.status));
    }
    let body: { token?: string; access_token?: string; expires_in?: number; issued_at?: string };
    try {
      body = JSON.parse(response.body.toString("utf8")) as typeof body;
    } catch {
      throw this.fail("protocol", msg.tokenServiceFailed(session.registry, realm.origin, response.status));
    }
    const token = body.token ?? body.access_token;
    if (!token)
      throw this.fail("protocol", msg.tokenServiceFailed(session.registry, realm.origin, response.status));
    this.secrets.add(token);
    const issued = body.issued_at ? Date.parse(body.issued_at) : Number.NaN;
    const start = Number.isFinite(issued) && issued <= Date.now() ? issued : Date.now();
    return { token, expiresAt: start + Math.max(body.expires_in ?? 60, 60) * 1000 };
  }

  private async authorization(
    session: Session,
    repository: string,
    scopes: string[],
  ): Promise<string | undefined> {
    const challenge = session.challenge;
    if (!challenge) return undefined;
    if (challenge.scheme === "basic") {
      const credential = await this.credential(session, repository);
      if (credential?.username === undefined || credential.password === undefined) return undefined;
      return `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString("base64")}`;
    }
    return `Bearer ${await this.token(session, repository, scopes)}`;
  }

  /** One authenticated request; a 401 refreshes the challenge/token once, as docker does. */
  private async call(
    registry: string,
    repository: string,
    actions: string,
    req: Omit<HttpRequest, "url"> & { url: string | URL },
    extraScopes: string[] = [],
  ): Promise<HttpResponse> {
    const session = await this.session(registry);
    const url = typeof req.url === "string" ? new URL(req.url, session.base) : req.url;
    let scopes = [repositoryScope(repository, actions), ...extraScopes];
    for (let attempt = 0; ; attempt++) {
      const auth = await this.authorization(session, repository, scopes);
      let response: HttpResponse;
      try {
        response = await this.transport.send({
          ...req,
          url,
          headers: { ...req.headers, ...(auth ? { authorization: auth } : {}) },
        });
      } catch (error) {
        throw this.connectionFailure(registry, url, error);
      }
      if (response.status !== 401 || attempt > 0) return response;
      const challenge = parseChallenges(response.headers["www-authenticate"]).find(
        (c) => c.scheme === "bearer" || c.scheme === "basic",
      );
      if (!challenge) return response;
      if (challenge.scheme === "basic" && session.challenge?.scheme === "basic") return response;
      session.challenge = challenge;
      if (challenge.params.scope) scopes = [...new Set([...scopes, ...challenge.params.scope.split(" ")])];
      session.tokens.clear();
    }
  }

  private async statusFailure(registry: string, response: HttpResponse, what: string): Promise<never> {
    const session = await this.sessions.get(registry)?.catch(() => undefined);
    const repository = /^\/v2\/(.+)\/(?:manifests|blobs)\//.exec(response.url.pathname)?.[1] ?? "";
    const pending = session?.credentials.get(repository);
    const credential = pending ? await pending.catch(() => undefined) : undefined;
    throw this.statusError(registry, response, what, credential);
  }

  private statusError(
    registry: string,
    response: HttpResponse,
    what: string,
    credential: Credential | undefined,
  ): RegistryError {
    const detail = msg.registryErrorDetail(response.body);
    const status = response.status;
    const insufficient = parseChallenges(response.headers["www-authenticate"]).some(
      (c) => c.params.error === "insufficient_scope",
    );
    if (status === 401 && insufficient && credential) {
      const m = msg.accessDenied(registry, what, detail);
      return this.fail("denied", m.message, m.hint, status);
    }
    if (status === 401) {
      const m = msg.authFailed(registry, credential?.source);
      return this.fail("auth", m.message, m.hint, status);
    }
    if (status === 403) {
      const m = msg.accessDenied(registry, what, detail);
      return this.fail("denied", m.message, m.hint, status);
    }
    if (status === 404) return this.fail("not-found", msg.notFound(what, detail), undefined, status);
    if (status === 429 || status >= 500) {
      return this.fail("unavailable", msg.unavailable(registry, status, detail), undefined, status);
    }
    return this.fail("protocol", msg.unexpectedStatus(registry, what, status, detail), undefined, status);
  }

  private async check(
    registry: string,
    response: HttpResponse,
    what: string,
    ok: number[],
  ): Promise<HttpResponse> {
    if (ok.includes(response.status)) return response;
    return this.statusFailure(registry, response, what);
  }

  /**
   * With token auth, fetches one token covering pull on all these repositories (grouped by the
   * credentials that apply), so a batch costs one token round trip instead of one per repository.
   * Failures are ignored here: each request then gets its own token and reports its own error.
   */
  async prefetchPullTokens(registry: string, repositories: readonly string[]): Promise<void> {
    try {
      const session = await this.session(registry);
      if (session.challenge?.scheme !== "bearer" || repositories.length < 2) return;
      const groups = new Map<string, string[]>();
      for (const repository of [...new Set(repositories)].sort()) {
        const c = await this.credential(session, repository);
        const key = c ? `${c.source}|${c.username ?? ""}|${c.identityToken ? "t" : ""}` : "anonymous";
        groups.set(key, [...(groups.get(key) ?? []), repository]);
      }
      for (const repos of groups.values()) {
        const scopes = repos.map((r) => repositoryScope(r, "pull"));
        const pending = this.fetchToken(session, repos[0]!, scopes);
        pending.catch(() => undefined);
        for (const scope of scopes) if (!session.tokens.has(scope)) session.tokens.set(scope, pending);
      }
    } catch {
      // Reported by the requests themselves.
    }
  }

  /** Where a pull of `registry/repository` goes first: its first mirror, else the registry itself. */
  firstPullLocation(registry: string, repository: string): { registry: string; repository: string } {
    return pullLocations(this.mirrors, registry, repository)[0]!;
  }

  /**
   * A pull from each mirror of `registry/repository` in order, then from the source (mirrors.ts):
   * the first answer wins; when all fail, the source's error, naming what each mirror answered.
   */
  private async viaMirrors<T>(
    registry: string,
    repository: string,
    pull: (registry: string, repository: string) => Promise<T>,
  ): Promise<T> {
    const locations = pullLocations(this.mirrors, registry, repository);
    const missed: string[] = [];
    for (const location of locations) {
      try {
        return await pull(location.registry, location.repository);
      } catch (error) {
        if (!location.mirror || !(error instanceof RegistryError)) {
          if (missed.length === 0 || !(error instanceof RegistryError)) throw error;
          throw new RegistryError(error.kind, `${error.message} (${missed.join("; ")})`, {
            ...(error.hint ? { hint: error.hint } : {}),
            cause: error,
            ...(error.status === undefined ? {} : { status: error.status }),
          });
        }
        missed.push(msg.mirrorMissed(location.mirror, error.message));
        this.options.reporter?.debug(missed.at(-1)!);
      }
    }
    throw new Error("unreachable: the source is always the last pull location");
  }

  /** The digest of a reference's top-level manifest (an index for multi-platform images), through mirrors. */
  async resolveDigest(ref: ImageReference): Promise<{ digest: string; mediaType: string; size: number }> {
    if (ref.digest) return { digest: ref.digest, mediaType: "", size: 0 };
    return this.viaMirrors(ref.registry, ref.repository, (registry, repository) =>
      this.resolveDigestAt({ ...ref, registry, repository }),
    );
  }

  private async resolveDigestAt(
    ref: ImageReference,
  ): Promise<{ digest: string; mediaType: string; size: number }> {
    const what = msg.manifestWhat(ref);
    const path = `/v2/${ref.repository}/manifests/${manifestSelector(ref)}`;
    const head = await this.call(ref.registry, ref.repository, "pull", {
      method: "HEAD",
      url: path,
      headers: { accept: MANIFEST_ACCEPT },
    });
    const headerDigest = head.headers["docker-content-digest"];
    if (head.status === 200 && typeof headerDigest === "string" && !digestProblem(headerDigest)) {
      return {
        digest: headerDigest,
        mediaType: String(head.headers["content-type"] ?? ""),
        size: Number(head.headers["content-length"] ?? 0),
      };
    }
    // No usable digest header (or HEAD unsupported): fetch the manifest and hash it.
    if (head.status === 200 || head.status === 405) {
      const manifest = await this.getManifestAt(ref, manifestSelector(ref));
      return { digest: manifest.digest, mediaType: manifest.mediaType, size: manifest.size };
    }
    return this.statusFailure(ref.registry, head, what);
  }

  /** GET a manifest (by tag or digest) and verify its digest, through mirrors. */
  async getManifest(ref: ImageReference, selector = manifestSelector(ref)): Promise<ManifestResult> {
    return this.viaMirrors(ref.registry, ref.repository, (registry, repository) =>
      this.getManifestAt({ ...ref, registry, repository }, selector),
    );
  }

  private async getManifestAt(ref: ImageReference, selector: string): Promise<ManifestResult> {
    const what = msg.manifestWhat(ref, selector);
    const response = await this.check(
      ref.registry,
      await this.call(ref.registry, ref.repository, "pull", {
        method: "GET",
        url: `/v2/${ref.repository}/manifests/${selector}`,
        headers: { accept: MANIFEST_ACCEPT },
        maxBytes: MAX_MANIFEST_BYTES,
      }),
      what,
      [200],
    );
    const body = response.body;
    const expected = selector.includes(":") ? selector : undefined;
    const headerDigest = response.headers["docker-content-digest"];
    const digest = expected ? digestOf(body, expected) : sha256Digest(body);
    if (expected && digest !== expected) {
      throw this.fail("digest-mismatch", msg.digestMismatch(what, expected, digest));
    }
    if (
      typeof headerDigest === "string" &&
      headerDigest.startsWith("sha256:") &&
      !expected &&
      headerDigest !== digest
    ) {
      throw this.fail("digest-mismatch", msg.digestMismatch(what, headerDigest, digest));
    }
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    } catch {
      throw this.fail("protocol", msg.manifestNotJson(what));
    }
    const mediaType =
      (typeof json.mediaType === "string" ? json.mediaType : undefined) ??
      String(response.headers["content-type"] ?? "").split(";")[0] ??
      "";
    return { digest, mediaType, size: body.length, body, json };
  }

  async putManifest(
    registry: string,
    repository: string,
    reference: string,
    body: Buffer,
    mediaType: string,
  ): Promise<string> {
    const digest = sha256Digest(body);
    const what = `manifest ${registry}/${repository}:${reference}`;
    const response = await this.check(
      registry,
      await this.call(registry, repository, "pull,push", {
        method: "PUT",
        url: `/v2/${repository}/manifests/${reference}`,
        headers: { "content-type": mediaType },
        body,
      }),
      what,
      [200, 201],
    );
    const said = response.headers["docker-content-digest"];
    if (typeof said === "string" && said !== digest) {
      throw this.fail("digest-mismatch", msg.digestMismatch(what, digest, said));
    }
    return digest;
  }

  async hasBlob(registry: string, repository: string, digest: string): Promise<boolean> {
    const response = await this.call(registry, repository, "pull", {
      method: "HEAD",
      url: `/v2/${repository}/blobs/${digest}`,
    });
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    return this.statusFailure(registry, response, `blob ${digest} in ${registry}/${repository}`);
  }

  /** GET a blob and verify its size and digest, through mirrors; refuses more than maxBytes. */
  async getBlob(
    registry: string,
    repository: string,
    descriptor: Descriptor,
    maxBytes: number,
  ): Promise<Buffer> {
    return this.viaMirrors(registry, repository, (at, repo) =>
      this.getBlobAt(at, repo, descriptor, maxBytes),
    );
  }

  private async getBlobAt(
    registry: string,
    repository: string,
    descriptor: Descriptor,
    maxBytes: number,
  ): Promise<Buffer> {
    const what = `blob ${descriptor.digest} in ${registry}/${repository}`;
    if (descriptor.size > maxBytes)
      throw this.fail("too-large", msg.blobTooLarge(what, descriptor.size, maxBytes));
    const response = await this.check(
      registry,
      await this.call(registry, repository, "pull", {
        method: "GET",
        url: `/v2/${repository}/blobs/${descriptor.digest}`,
        maxBytes,
      }),
      what,
      [200],
    );
    const actual = digestOf(response.body, descriptor.digest);
    if (actual !== descriptor.digest || response.body.length !== descriptor.size) {
      throw this.fail("digest-mismatch", msg.digestMismatch(what, descriptor.digest, actual));
    }
    return response.body;
  }

  /**
   * Uploads a blob unless the repository has it: tries a cross-repository mount from `mountFrom`
   * first (same registry), then a monolithic PUT, or PATCH chunks of `chunkSize` for larger blobs.
   */
  async uploadBlob(
    registry: string,
    repository: string,
    data: Buffer,
    options: { mountFrom?: string; chunkSize?: number } = {},
  ): Promise<UploadResult> {
    const digest = sha256Digest(data);
    const what = `blob ${digest} upload to ${registry}/${repository}`;
    if (await this.hasBlob(registry, repository, digest)) return { digest, size: data.length, how: "exists" };
    let start: HttpResponse;
    if (options.mountFrom && options.mountFrom !== repository) {
      const query = new URLSearchParams({ mount: digest, from: options.mountFrom });
      start = await this.call(
        registry,
        repository,
        "pull,push",
        { method: "POST", url: `/v2/${repository}/blobs/uploads/?${query}`, body: Buffer.alloc(0) },
        [repositoryScope(options.mountFrom, "pull")],
      );
      if (start.status === 201) return { digest, size: data.length, how: "mounted" };
    } else {
      start = await this.call(registry, repository, "pull,push", {
        method: "POST",
        url: `/v2/${repository}/blobs/uploads/`,
        body: Buffer.alloc(0),
      });
    }
    await this.check(registry, start, what, [202]);
    const session = await this.session(registry);
    let location = this.uploadLocation(start, session.base, what);
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
    let finalBody = data;
    if (data.length > chunkSize) {
      for (let offset = 0; offset < data.length; offset += chunkSize) {
        const chunk = data.subarray(offset, Math.min(offset + chunkSize, data.length));
        const patched = await this.check(
          registry,
          await this.call(registry, repository, "pull,push", {
            method: "PATCH",
            url: location,
            headers: {
              "content-type": "application/octet-stream",
              "content-range": `${offset}-${offset + chunk.length - 1}`,
            },
            body: Buffer.from(chunk),
            retry: false,
          }),
          what,
          [202],
        );
        location = this.uploadLocation(patched, session.base, what);
      }
      finalBody = Buffer.alloc(0);
    }
    location.searchParams.set("digest", digest);
    const done = await this.check(
      registry,
      await this.call(registry, repository, "pull,push", {
        method: "PUT",
        url: location,
        headers: { "content-type": "application/octet-stream" },
        body: finalBody,
        retry: finalBody.length > 0 || data.length === 0,
      }),
      what,
      [201, 204],
    );
    const said = done.headers["docker-content-digest"];
    if (typeof said === "string" && said !== digest) {
      throw this.fail("digest-mismatch", msg.digestMismatch(what, digest, said));
    }
    return { digest, size: data.length, how: "uploaded" };
  }

  /**
   * Cross-repository mount of a blob the caller does not hold (a base image's layer): true when the
   * registry mounted it; false when it did not (the caller then copies the blob).
   */
  async mountBlob(registry: string, repository: string, digest: string, from: string): Promise<boolean> {
    if (from === repository) return this.hasBlob(registry, repository, digest);
    const query = new URLSearchParams({ mount: digest, from });
    const response = await this.call(
      registry,
      repository,
      "pull,push",
      { method: "POST", url: `/v2/${repository}/blobs/uploads/?${query}`, body: Buffer.alloc(0) },
      [repositoryScope(from, "pull")],
    );
    if (response.status === 201) return true;
    if (response.status === 202) {
      // The registry opened an upload instead; cancel it so it does not linger.
      const location = response.headers.location;
      if (typeof location === "string" && location) {
        await this.call(registry, repository, "pull,push", { method: "DELETE", url: location }).catch(
          () => undefined,
        );
      }
      return false;
    }
    return this.statusFailure(registry, response, `blob ${digest} mount into ${registry}/${repository}`);
  }

  private uploadLocation(response: HttpResponse, base: URL, what: string): URL {
    const location = response.headers.location;
    if (typeof location !== "string" || !location) throw this.fail("protocol", msg.noUploadLocation(what));
    return new URL(location, base);
  }
}
