// The Manager's webhook server: HTTPS with the certificate and key from a directory (a mounted
// Secret, e.g. cert-manager's or OLM's), reloaded when the files change, routing POSTed
// AdmissionReviews and ConversionReviews by path. Loaded by the Manager only when webhooks are
// registered. Request logs name the request (uid, kind, name, verdict), never the object.
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ReviewError, runDefaulter, runValidator } from "./admission.js";
import { type RegisteredConverter, runConversion } from "./conversion.js";
import { listenOn } from "../serving/listen.js";
import type { Logger } from "../log/logger.js";
import { ServingCert, TLS_OPTIONS } from "../serving/serving-cert.js";
import type { Defaulter, Validator } from "../webhooks.js";

export type WebhookRoute =
  | { type: "mutating"; name: string; handler: Defaulter<unknown> }
  | { type: "validating"; name: string; handler: Validator<unknown> }
  | { type: "conversion"; converters: RegisteredConverter[] };

export interface WebhookServerOptions {
  host: string;
  port: number;
  /** Directory holding the serving certificate and key. */
  certDir: string;
  certName: string;
  keyName: string;
  logger: Logger;
  /** How often the certificate files are checked for changes (ms). Default 1000. */
  certPollIntervalMs?: number;
}

/** Largest review body accepted: an object and its old version at the API server's 3 MiB limit each. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export class WebhookServer {
  private server: https.Server | undefined;
  private readonly cert: ServingCert;
  /** "https://host:port" once listening. */
  url: string | undefined;

  constructor(
    private readonly routes: ReadonlyMap<string, WebhookRoute>,
    private readonly options: WebhookServerOptions,
  ) {
    this.cert = new ServingCert({
      certDir: options.certDir,
      certName: options.certName,
      keyName: options.keyName,
      purpose: "webhook",
      missingHint:
        "mount the serving certificate Secret there (config/certmanager, or OLM in a bundle), pass --webhook-cert-path, or set ENABLE_WEBHOOKS=false to run without webhooks",
      logger: options.logger,
      ...(options.certPollIntervalMs === undefined ? {} : { pollIntervalMs: options.certPollIntervalMs }),
    });
  }

  async start(): Promise<string> {
    const log = this.options.logger;
    const server = https.createServer({ ...this.cert.read(), ...TLS_OPTIONS }, (req, res) => {
      void this.handle(req, res);
    });
    this.server = server;
    this.cert.watch(server);
    this.url = await listenOn(server, this.options, "https");
    log.info("serving webhooks", { address: this.url, paths: [...this.routes.keys()].sort() });
    return this.url;
  }

  /** Readiness: listening with a certificate. */
  ready(): true | string {
    return this.url ? true : "webhook server not listening";
  }

  /** Liveness: the last certificate reload worked. */
  healthy(): true | string {
    return this.cert.healthy();
  }

  async stop(): Promise<void> {
    this.cert.unwatch();
    const server = this.server;
    if (!server) return;
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections?.();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "https://webhook").pathname;
    const route = this.routes.get(path);
    if (!route) return reply(res, 404, { message: `no webhook is served at ${path}` });
    if (req.method !== "POST") return reply(res, 405, { message: "webhooks accept POST only" });
    const type = String(req.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim();
    if (type !== "application/json")
      return reply(res, 415, { message: `content type "${type}" is not supported; use application/json` });
    const started = Date.now();
    let review: unknown;
    try {
      review = JSON.parse(await readBody(req));
    } catch (error) {
      return reply(res, 400, { message: `cannot read the review: ${(error as Error).message}` });
    }
    const log = this.options.logger;
    try {
      if (route.type === "conversion") {
        const { body, summary } = runConversion(review, route.converters);
        log.debug("conversion", { path, ...summary, ms: Date.now() - started });
        return reply(res, 200, body);
      }
      const outcome =
        route.type === "mutating"
          ? await runDefaulter(route.handler, review)
          : await runValidator(route.handler, review);
      log.debug("admission", { path, webhook: route.name, ...outcome.summary, ms: Date.now() - started });
      return reply(res, 200, outcome.body);
    } catch (error) {
      if (error instanceof ReviewError) return reply(res, 400, { message: error.message });
      log.error("webhook failed", error, { path });
      return reply(res, 500, { message: "internal error in the webhook" });
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}
