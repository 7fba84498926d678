// The benchmark's own client of the bed's kube-apiserver: JSON requests over a keep-alive pool and
// watch streams. It authenticates as the bed's admin token user, which the audit policy leaves out,
// so none of its requests are counted as the operator's.
import { Agent, request } from "node:https";

export interface ApiTarget {
  url: string;
  ca: string;
  token: string;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: Record<string, unknown>;
}

export class BenchApi {
  private readonly agent: Agent;

  constructor(private readonly target: ApiTarget) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 16, ca: target.ca });
  }

  /** One request; rejects unless the answer is 2xx (or one of `accept`). */
  async send(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.target.url}${path}`,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.target.token}`,
            accept: "application/json",
            ...(payload ? { "content-type": contentType } : {}),
          },
          timeout: 60_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299)
              return reject(new Error(`${method} ${path} answered ${status}: ${text.slice(0, 300)}`));
            resolve({ status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** Every item of a collection (paged) and the list's resourceVersion. */
  async list(path: string): Promise<{ items: Array<Record<string, unknown>>; resourceVersion: string }> {
    const items: Array<Record<string, unknown>> = [];
    let token = "";
    for (;;) {
      const page = await this.send("GET", `${path}?limit=500${token ? `&continue=${token}` : ""}`);
      items.push(...((page.body.items as Array<Record<string, unknown>>) ?? []));
      const meta = page.body.metadata as { continue?: string; resourceVersion: string };
      if (!meta.continue) return { items, resourceVersion: meta.resourceVersion };
      token = encodeURIComponent(meta.continue);
    }
  }

  /** Opens a watch from `resourceVersion`; `onEvent` gets each event; resolves when the stream ends. */
  watch(
    path: string,
    resourceVersion: string,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const query = `watch=1&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion=${resourceVersion}`;
    return new Promise((resolve, reject) => {
      const req = request(`${this.target.url}${path}?${query}`, {
        headers: { authorization: `Bearer ${this.target.token}`, accept: "application/json" },
        ca: this.target.ca,
        signal,
      });
      req.on("response", (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`watch ${path} answered ${res.statusCode}`));
        }
        let buffered = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffered += chunk;
          let newline: number;
          while ((newline = buffered.indexOf("\n")) >= 0) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            if (line.trim()) onEvent(JSON.parse(line) as WatchEvent);
          }
        });
        res.on("end", resolve);
        res.on("error", (e) => (signal.aborted ? resolve() : reject(e)));
      });
      req.on("error", (e) => (signal.aborted ? resolve() : reject(e)));
      req.end();
    });
  }

  /** Runs `task` for 0…count-1 with `concurrency` in flight; rejects on the first failure. */
  static async pool(
    count: number,
    concurrency: number,
    task: (i: number) => Promise<unknown>,
  ): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < count) await task(next++);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  }

  close(): void {
    this.agent.destroy();
  }
}
