// The credentials of one kubeconfig user for one cluster, as request headers and TLS material.
// Files are read again periodically, as client-go does: token files every minute (projected
// service-account tokens rotate), certificate files every five minutes; a 401 forces a fresh read
// (and a fresh exec-plugin run). Legacy auth providers (oidc, …) are the one case that loads
// @kubernetes/client-node, lazily, because tsop has no implementation of its own for them.
import { readFileSync } from "node:fs";
import { execCredential, forgetExecCredential } from "./exec-credential.js";
import type { ClusterAccess } from "./kubeconfig.js";

export interface TlsMaterial {
  ca?: Buffer;
  cert?: Buffer | string;
  key?: Buffer | string;
  /** false only with insecure-skip-tls-verify. */
  rejectUnauthorized?: boolean;
  servername?: string;
}

export interface Credentials {
  headers: Record<string, string | string[]>;
  tls: TlsMaterial;
}

export interface CredentialOptions {
  /** Environment of exec plugins. */
  env: NodeJS.ProcessEnv;
  /** Whether a person could answer an interactive exec plugin. */
  interactive: boolean;
  /** Clock (ms), for tests. */
  now?: () => number;
}

const TOKEN_FILE_PERIOD_MS = 60_000;
const CERT_FILE_PERIOD_MS = 5 * 60_000;

/** A file's content, read again once it is older than the period (or after invalidate()). */
export class PeriodicFile {
  private value: Buffer | undefined;
  private readAt = 0;

  constructor(
    readonly path: string,
    private readonly periodMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  read(): Buffer {
    if (this.value === undefined || this.now() - this.readAt >= this.periodMs) {
      this.value = readFileSync(this.path);
      this.readAt = this.now();
    }
    return this.value;
  }

  invalidate(): void {
    this.value = undefined;
  }
}

interface LegacyKubeConfig {
  applyAuthorizationHeader(opts: { headers: Record<string, string> }): Promise<void>;
}

export class CredentialSource {
  private readonly files = new Map<string, PeriodicFile>();
  private legacy: Promise<LegacyKubeConfig> | undefined;

  constructor(
    private readonly access: ClusterAccess,
    private readonly options: CredentialOptions,
  ) {}

  /** Headers and TLS material for the next request. */
  async current(): Promise<Credentials> {
    const { cluster, user } = this.access;
    const tls: TlsMaterial = {
      ca: this.material(cluster.caFile, cluster.caData, CERT_FILE_PERIOD_MS),
      cert: this.material(user.certFile, user.certData, CERT_FILE_PERIOD_MS),
      key: this.material(user.keyFile, user.keyData, CERT_FILE_PERIOD_MS),
      servername: cluster.tlsServerName,
      ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
    };
    const headers: Record<string, string | string[]> = {};
    const bearer = user.tokenFile
      ? this.file(user.tokenFile, TOKEN_FILE_PERIOD_MS).read().toString("utf8").trim()
      : user.token;
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    else if (user.exec) {
      const cred = await execCredential(user.name, user.exec, {
        interactive: this.options.interactive,
        env: this.options.env,
        server: cluster.server,
      });
      if (cred.token) headers.Authorization = `Bearer ${cred.token}`;
      if (cred.clientCertificateData) tls.cert = cred.clientCertificateData;
      if (cred.clientKeyData) tls.key = cred.clientKeyData;
    } else if (user.authProvider) {
      const opts = { headers: {} as Record<string, string> };
      await (await this.legacyKubeConfig()).applyAuthorizationHeader(opts);
      Object.assign(headers, opts.headers);
    }
    if (!headers.Authorization && user.username) {
      headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ""}`).toString("base64")}`;
    }
    if (user.impersonateUser) headers["Impersonate-User"] = user.impersonateUser;
    if (user.impersonateGroups?.length) headers["Impersonate-Group"] = user.impersonateGroups;
    return { headers, tls };
  }

  /** After a 401: forgets what may have been renewed since; whether sending again can help. */
  refresh(): boolean {
    const { user } = this.access;
    for (const f of this.files.values()) f.invalidate();
    if (user.exec && !user.tokenFile && !user.token) forgetExecCredential(user.name);
    return Boolean(user.exec || user.tokenFile);
  }

  private file(path: string, periodMs: number): PeriodicFile {
    let f = this.files.get(path);
    if (!f) {
      f = new PeriodicFile(path, periodMs, this.options.now);
      this.files.set(path, f);
    }
    return f;
  }

  private material(file: string | undefined, data: string | undefined, periodMs: number): Buffer | undefined {
    if (file) return this.file(file, periodMs).read();
    return data ? Buffer.from(data, "base64") : undefined;
  }

  private legacyKubeConfig(): Promise<LegacyKubeConfig> {
    this.legacy ??= import("@kubernetes/client-node").then(({ KubeConfig }) => {
      const { cluster, user } = this.access;
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: cluster.name, server: cluster.server, skipTLSVerify: true }],
        users: [{ name: user.name, authProvider: user.authProvider }],
        contexts: [{ name: "tsop", cluster: cluster.name, user: user.name }],
        currentContext: "tsop",
      });
      return kc as unknown as LegacyKubeConfig;
    });
    return this.legacy;
  }
}
