// A serving certificate read from a directory (a mounted Secret: cert-manager's, OLM's, the
// service CA's) and reloaded into an HTTPS server when the files change, as controller-runtime's
// certwatcher does. The webhook server and the metrics server share it.
import { readFileSync, type Stats, unwatchFile, watchFile } from "node:fs";
import type https from "node:https";
import { join } from "node:path";
import type { SecureContextOptions } from "node:tls";
import { ConfigError } from "../connect/errors.js";
import type { Logger } from "../log/logger.js";

export interface ServingCertOptions {
  /** Directory holding the certificate and key. */
  certDir: string;
  certName: string;
  keyName: string;
  /** What the certificate serves, for messages ("webhook", "metrics"). */
  purpose: string;
  /** What to do when the files are missing. */
  missingHint: string;
  logger: Logger;
  /** How often the files are checked for changes (ms). Default 1000. */
  pollIntervalMs?: number;
}

/** The TLS options every tsop HTTPS server uses besides its certificate. */
export const TLS_OPTIONS = { minVersion: "TLSv1.2" } as const;

export class ServingCert {
  private error: string | undefined;
  private readonly listeners: Array<[string, (now: Stats, before: Stats) => void]> = [];
  readonly certFile: string;
  readonly keyFile: string;

  constructor(private readonly options: ServingCertOptions) {
    this.certFile = join(options.certDir, options.certName);
    this.keyFile = join(options.certDir, options.keyName);
  }

  /** The certificate and key as they are on disk now; a ConfigError naming the file when unreadable. */
  read(): SecureContextOptions {
    try {
      return { cert: readFileSync(this.certFile), key: readFileSync(this.keyFile) };
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      throw new ConfigError(
        `the ${this.options.purpose} server needs a certificate and key: ${e.code === "ENOENT" ? `${e.path} does not exist` : e.message}`,
        { cause: error, hint: this.options.missingHint },
      );
    }
  }

  /** Reloads the server's certificate whenever either file changes; a bad pair keeps the previous one. */
  watch(server: https.Server): void {
    const log = this.options.logger;
    const reload = () => {
      try {
        server.setSecureContext({ ...this.read(), ...TLS_OPTIONS });
        this.error = undefined;
        log.info(`reloaded the ${this.options.purpose} serving certificate`, {
          certDir: this.options.certDir,
        });
      } catch (error) {
        this.error = (error as Error).message;
        log.error(
          `could not reload the ${this.options.purpose} serving certificate; still serving the previous one`,
          error,
        );
      }
    };
    const interval = this.options.pollIntervalMs ?? 1000;
    const onChange = (now: Stats, before: Stats) => {
      if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) reload();
    };
    for (const file of [this.certFile, this.keyFile]) {
      watchFile(file, { interval, persistent: false }, onChange);
      this.listeners.push([file, onChange]);
    }
  }

  /** Liveness: the last reload worked (or none was needed). */
  healthy(): true | string {
    return this.error ?? true;
  }

  unwatch(): void {
    for (const [file, listener] of this.listeners.splice(0)) unwatchFile(file, listener);
  }
}
