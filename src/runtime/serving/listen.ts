// Bind addresses as the manager's flags spell them (":8080", "127.0.0.1:8080", "0" = off) and
// listening on them, shared by the probe, metrics and webhook servers.
import type http from "node:http";
import type https from "node:https";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../connect/errors.js";

export interface BindAddress {
  host: string;
  port: number;
}

/** The host and port of "host:port" or ":port"; undefined for "0" or "" (the server is off). */
export function parseBindAddress(address: string): BindAddress | undefined {
  if (address === "0" || address === "") return undefined;
  const colon = address.lastIndexOf(":");
  const host = colon > 0 ? address.slice(0, colon).replace(/^\[|\]$/g, "") : "0.0.0.0";
  const port = Number(address.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`invalid bind address "${address}"`, {
      hint: 'use ":8080", "127.0.0.1:8080" or "0" to disable',
    });
  return { host, port };
}

/** Starts listening; resolves with "http(s)://host:port" (the port the system picked for port 0). */
export function listenOn(
  server: http.Server | https.Server,
  at: BindAddress,
  scheme: "http" | "https",
): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", (err) =>
      reject(new ConfigError(`cannot listen on ${at.host}:${at.port}: ${err.message}`, { cause: err })),
    );
    server.listen(at.port, at.host, () => {
      const address = server.address() as AddressInfo;
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve(`${scheme}://${host}:${address.port}`);
    });
  });
}
