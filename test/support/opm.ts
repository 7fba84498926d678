// opm (the rig's operator-registry build) as an oracle for bundles and catalogs: `opm render` of a
// bundle image, `opm validate` of a catalog directory, and `opm serve` of one, queried over its
// gRPC API (api.Registry, pkg/api/registry.proto) with node:http2 and a small protobuf codec: opm
// ships no client and the repository has no gRPC library.
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:http2";
import { createServer } from "node:net";
import { execa } from "execa";
import { parseAllDocuments } from "yaml";
import { rigBinary } from "./rig.js";

export type Blob = Record<string, unknown>;

/** `opm render <refs…> -o yaml`, parsed; plain HTTP for the local test registry. */
export async function opmRender(refs: string[], options: { useHttp?: boolean } = {}): Promise<Blob[]> {
  const args = ["render", ...refs, "-o", "yaml", ...(options.useHttp ? ["--use-http"] : [])];
  const result = await execa(rigBinary("opm"), args, { reject: false, timeout: 120_000 });
  if (result.exitCode !== 0) throw new Error(`opm ${args.join(" ")} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as Blob | null)
    .filter((b): b is Blob => b !== null);
}

/** `opm validate <dir>`: exit code and output. */
export async function opmValidate(dir: string): Promise<{ exitCode: number; output: string }> {
  const result = await execa(rigBinary("opm"), ["validate", dir], { reject: false, timeout: 120_000 });
  return { exitCode: result.exitCode ?? -1, output: `${result.stdout}${result.stderr}` };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export interface OpmServer {
  port: number;
  /** Everything opm wrote so far. */
  log(): string;
  call(method: string, request: Buffer): Promise<Buffer[]>;
  stop(): Promise<void>;
}

/** `opm serve <dir>` on a free port; resolves once the gRPC port answers a health check. */
export async function opmServe(dir: string): Promise<OpmServer> {
  const port = await freePort();
  // No pprof endpoint: its fixed default port would clash between servers.
  const child: ChildProcess = spawn(
    rigBinary("opm"),
    ["serve", dir, "-p", String(port), "--pprof-addr", ""],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  running.add(child);
  let output = "";
  const collect = (c: Buffer) => (output += c.toString("utf8"));
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const server: OpmServer = {
    port,
    log: () => output,
    call: (method, request) => grpcCall(port, method, request),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      running.delete(child);
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`opm serve ${dir} exited (${child.exitCode}):\n${output}`);
    const status = await health(server).catch(() => undefined);
    if (status === SERVING) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`opm serve ${dir} did not answer a health check in 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const SERVING = 1;

/** grpc.health.v1.Health/Check with an empty service name: the status enum (1 = SERVING). */
async function health(server: OpmServer): Promise<number> {
  const [reply] = await server.call("/grpc.health.v1.Health/Check", Buffer.alloc(0));
  return Number(decode(reply ?? Buffer.alloc(0), { 1: ["status", "varint"] }).status ?? 0);
}

/** One gRPC call over h2c: length-prefixed messages out and in, grpc-status from the trailers. */
function grpcCall(port: number, path: string, request: Buffer): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`);
    session.on("error", reject);
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
    });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let message = "";
    const takeStatus = (headers: Record<string, unknown>) => {
      if (headers["grpc-status"] !== undefined) status = String(headers["grpc-status"]);
      if (headers["grpc-message"] !== undefined)
        message = decodeURIComponent(String(headers["grpc-message"]));
    };
    stream.on("response", takeStatus);
    stream.on("trailers", takeStatus);
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", (e) => {
      session.close();
      reject(e);
    });
    stream.on("end", () => {
      session.close();
      if (status !== "0") return reject(new Error(`${path}: grpc-status ${status}: ${message}`));
      const body = Buffer.concat(chunks);
      const messages: Buffer[] = [];
      for (let at = 0; at + 5 <= body.length;) {
        const length = body.readUInt32BE(at + 1);
        messages.push(body.subarray(at + 5, at + 5 + length));
        at += 5 + length;
      }
      resolve(messages);
    });
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(request.length, 1);
    stream.end(Buffer.concat([frame, request]));
  });
}

// ---------------------------------------------------------------------------------------------
// A protobuf codec for the few messages used here: strings, varints and nested messages.

export type Schema = Record<number, [string, "string" | "varint"] | [string, "message", Schema]>;

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** Encodes string fields (field number → value); the requests of api.Registry need nothing else. */
export function encodeStrings(fields: Record<number, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [field, value] of Object.entries(fields)) {
    const bytes = Buffer.from(value, "utf8");
    parts.push(varint((Number(field) << 3) | 2), varint(bytes.length), bytes);
  }
  return Buffer.concat(parts);
}

function readVarint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let pos = at;
  for (;;) {
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, pos];
    shift += 7;
  }
}

/** Decodes a message; fields seen more than once become arrays; unknown fields are skipped. */
export function decode(buf: Buffer, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (name: string, value: unknown) => {
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  };
  for (let at = 0; at < buf.length;) {
    const [key, next] = readVarint(buf, at);
    const wire = key & 7;
    const spec = schema[Math.floor(key / 8)];
    at = next;
    if (wire === 0) {
      const [value, after] = readVarint(buf, at);
      if (spec) put(spec[0], value);
      at = after;
    } else if (wire === 2) {
      const [length, start] = readVarint(buf, at);
      const bytes = buf.subarray(start, start + length);
      if (spec?.[1] === "message") put(spec[0], decode(bytes, spec[2]));
      else if (spec) put(spec[0], bytes.toString("utf8"));
      at = start + length;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`protobuf wire type ${wire} is not handled`);
  }
  return out;
}

/** A field that may repeat, as a list. */
export const list = <T>(value: unknown): T[] =>
  value === undefined ? [] : Array.isArray(value) ? (value as T[]) : [value as T];

const GVK: Schema = {
  1: ["group", "string"],
  2: ["version", "string"],
  3: ["kind", "string"],
  4: ["plural", "string"],
};

/** api.Registry messages (pkg/api/registry.proto). */
export const REGISTRY = {
  PackageName: { 1: ["name", "string"] } as Schema,
  Package: {
    1: ["name", "string"],
    2: ["channels", "message", { 1: ["name", "string"], 2: ["csvName", "string"] }],
    3: ["defaultChannelName", "string"],
  } as Schema,
  Bundle: {
    1: ["csvName", "string"],
    2: ["packageName", "string"],
    3: ["channelName", "string"],
    4: ["csvJson", "string"],
    5: ["object", "string"],
    6: ["bundlePath", "string"],
    7: ["providedApis", "message", GVK],
    8: ["requiredApis", "message", GVK],
    9: ["version", "string"],
    10: ["skipRange", "string"],
    11: ["dependencies", "message", { 1: ["value", "string"] }],
    12: ["properties", "message", { 1: ["type", "string"], 2: ["value", "string"] }],
    13: ["replaces", "string"],
    14: ["skips", "string"],
  } as Schema,
};

/** The served view of one package: packages listed, the package, and each channel's head bundle. */
export async function servedPackage(server: OpmServer, packageName: string) {
  const names = (await server.call("/api.Registry/ListPackages", Buffer.alloc(0))).map(
    (m) => decode(m, REGISTRY.PackageName).name,
  );
  const [pkg] = await server.call("/api.Registry/GetPackage", encodeStrings({ 1: packageName }));
  const decoded = decode(pkg!, REGISTRY.Package);
  const channels = list<{ name: string; csvName: string }>(decoded.channels);
  const bundles = [];
  for (const channel of channels) {
    const [bundle] = await server.call(
      "/api.Registry/GetBundle",
      encodeStrings({ 1: packageName, 2: channel.name, 3: channel.csvName }),
    );
    bundles.push(decode(bundle!, REGISTRY.Bundle));
  }
  return { packages: names, defaultChannel: decoded.defaultChannelName, channels, bundles };
}
