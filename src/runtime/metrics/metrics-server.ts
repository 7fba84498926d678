// The manager's /metrics endpoint, as controller-runtime's metrics server: plain HTTP, or (secure)
// HTTPS where every scrape is authenticated and authorized by the API server (metrics-auth.ts).
// The secure server's certificate comes from a directory when one is given (watched for rotation)
// and is otherwise made at start, self-signed, in memory.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import { selfSignedCert } from "../../common/x509.js";
import { type BindAddress, listenOn } from "../serving/listen.js";
import type { Logger } from "../log/logger.js";
import type { MetricsAuthorizer } from "./metrics-auth.js";
import { PROMETHEUS_CONTENT_TYPE } from "./metrics.js";
import { ServingCert, TLS_OPTIONS } from "../serving/serving-cert.js";

export interface MetricsServerOptions extends BindAddress {
  /** The exposition served on /metrics. */
  render: () => string;
  logger: Logger;
  /** Also serve /debug/pprof/profile and /debug/pprof/heap (profiling.ts), behind the same auth. */
  profiling?: boolean;
  /** HTTPS with authentication and authorization of every scrape; absent: plain HTTP, no checks. */
  secure?: {
    authorizer: MetricsAuthorizer;
    /** Directory of the serving certificate (required to hold it); absent: a self-signed one is made. */
    certDir?: string;
    certName: string;
    keyName: string;
    certPollIntervalMs?: number;
  };
}

const METRICS_PATH = "/metrics";

export class MetricsServer {
  private server: http.Server | https.Server | undefined;
  private cert: ServingCert | undefined;
  /** "http(s)://host:port" once listening. */
  url: string | undefined;

  constructor(private readonly options: MetricsServerOptions) {}

  async start(): Promise<string> {
    const secure = this.options.secure;
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    const server = secure
      ? https.createServer({ ...this.tlsMaterial(secure), ...TLS_OPTIONS }, handler)
      : http.createServer(handler);
    this.server = server;
    if (this.cert) this.cert.watch(server as https.Server);
    this.url = await listenOn(server, this.options, secure ? "https" : "http");
    this.options.logger.info("serving metrics", {
      address: this.url,
      secure: Boolean(secure),
      ...(secure ? { certificate: this.cert ? this.cert.certFile : "self-signed" } : {}),
    });
    return this.url;
  }

  /** Liveness: the last certificate reload worked. */
  healthy(): true | string {
    return this.cert?.healthy() ?? true;
  }

  async stop(): Promise<void> {
    this.cert?.unwatch();
    const server = this.server;
    if (!server) return;
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections?.();
  }

  /** The pair in the certificate directory (watched), or a self-signed one when none is given. */
  private tlsMaterial(secure: NonNullable<MetricsServerOptions["secure"]>): {
    cert: string | Buffer;
    key: string | Buffer;
  } {
    if (!secure.certDir) return selfSignedCert("tsop-metrics");
    this.cert = new ServingCert({
      certDir: secure.certDir,
      certName: secure.certName,
      keyName: secure.keyName,
      purpose: "metrics",
      missingHint:
        "mount the metrics certificate Secret there, fix --metrics-cert-path / --metrics-cert-name / --metrics-cert-key, or leave --metrics-cert-path out to serve a self-signed certificate",
      logger: this.options.logger,
      ...(secure.certPollIntervalMs === undefined ? {} : { pollIntervalMs: secure.certPollIntervalMs }),
    });
    const { cert, key } = this.cert.read();
    return { cert: cert as Buffer, key: key as Buffer };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://metrics");
    const path = url.pathname;
    const profiling = this.options.profiling === true && path.startsWith("/debug/pprof/");
    if (path !== METRICS_PATH && !profiling) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const authorizer = this.options.secure?.authorizer;
    if (authorizer) {
      const verdict = await authorizer.check(req.headers.authorization, req.method ?? "GET", path);
      if (!verdict.allowed) {
        res.writeHead(verdict.status, {
          "Content-Type": "text/plain; charset=utf-8",
          "X-Content-Type-Options": "nosniff",
        });
        res.end(`${verdict.message}\n`);
        return;
      }
    }
    if (profiling) {
      const { serveProfile } = await import("./profiling.js");
      if (!(await serveProfile(path, url.searchParams, res)))
        res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    res.writeHead(200, { "Content-Type": PROMETHEUS_CONTENT_TYPE }).end(this.options.render());
  }
}
