// The kubelet API of the fake Node, for the runner's pods: `kubectl logs` works. The kube-apiserver
// reaches a node's kubelet through its egress selector ("cluster" traffic), that is through the
// runner's CONNECT proxy (network.ts), which sends the Node's addresses at its kubelet port here.
// Served: GET /containerLogs/<namespace>/<pod>/<container> with follow, previous, tailLines and
// limitBytes (timestamps and sinceSeconds are ignored). A pod kwok simulates has no logs: the
// answer says so. TLS with a self-signed certificate (the kube-apiserver does not verify a
// kubelet's certificate unless --kubelet-certificate-authority is set; the bed does not set it).
import { createReadStream, existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { ServerResponse } from "node:http";
import { selfSignedCert } from "../../../src/testing/tls.js";
import type { ContainerRun } from "./pod.js";

export interface LogSource {
  /**
   * The run whose log to show (RunnerPod.logRun: a run, or the kubelet's message why there is
   * none); undefined when the runner does not run that pod.
   */
  logRun(
    namespace: string,
    pod: string,
    container: string,
    previous: boolean,
  ): ContainerRun | string | undefined;
}

export async function startKubeletApi(source: LogSource): Promise<{ server: Server; port: number }> {
  const { cert, key } = selfSignedCert("kwok-node-0");
  const server = createServer({ cert, key }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://kubelet");
    const logs = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method !== "GET" || !logs) {
      res.writeHead(404).end("404 page not found\n");
      return;
    }
    const [, namespace, pod, container] = logs.map((p) => decodeURIComponent(p ?? "")) as string[];
    void serveLogs(source, namespace!, pod!, container!, url.searchParams, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500).end(`${error.message}\n`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

async function serveLogs(
  source: LogSource,
  namespace: string,
  pod: string,
  container: string,
  query: URLSearchParams,
  res: ServerResponse,
): Promise<void> {
  const previous = query.get("previous") === "true";
  const run = source.logRun(namespace, pod, container, previous);
  // 400, not 404: the kube-apiserver passes a kubelet's error text on except for 404.
  if (run === undefined) {
    res
      .writeHead(400)
      .end(
        `pod "${pod}" in namespace "${namespace}" is simulated by kwok on the test bed: it runs no process and has no logs\n`,
      );
    return;
  }
  if (typeof run === "string" || !existsSync(run.logFile)) {
    res.writeHead(400).end(`${typeof run === "string" ? run : "log file missing"}\n`);
    return;
  }
  res.writeHead(200, { "Content-Type": "text/plain" });
  let text: Buffer = await readFile(run.logFile);
  const tail = query.get("tailLines");
  if (tail !== null) text = tailLines(text, Number(tail));
  const limit = query.get("limitBytes");
  if (limit !== null) text = text.subarray(0, Number(limit));
  const follow = query.get("follow") === "true" && !previous && limit === null;
  if (!follow) {
    res.end(text);
    return;
  }
  res.write(text);
  await followFile(run, statSync(run.logFile).size, res);
}

/** Streams what is appended to the run's log until its process exits (or the client goes). */
async function followFile(run: ContainerRun, from: number, res: ServerResponse): Promise<void> {
  let offset = from;
  let closed = false;
  res.once("close", () => (closed = true));
  let exited = false;
  void run.process?.exited.then(() => (exited = true));
  while (!closed) {
    const size = statSync(run.logFile).size;
    if (size > offset) {
      await new Promise<void>((resolve, reject) => {
        createReadStream(run.logFile, { start: offset, end: size - 1 })
          .on("data", (chunk) => res.write(chunk))
          .on("end", resolve)
          .on("error", reject);
      });
      offset = size;
    } else if (exited || !run.process) {
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  res.end();
}

function tailLines(text: Buffer, n: number): Buffer {
  if (!(n >= 0)) return text;
  const lines = text.toString("utf8").split("\n");
  const trailing = lines[lines.length - 1] === "" ? lines.pop() : undefined;
  const kept = n === 0 ? [] : lines.slice(-n);
  return Buffer.from(kept.join("\n") + (trailing !== undefined && kept.length ? "\n" : ""));
}
