// Probes as a kubelet runs them, for one run of one container: the startup probe first (liveness
// and readiness wait for it; failureThreshold failures kill the container), then readiness
// (Ready after successThreshold successes, not Ready after failureThreshold failures; a container
// without one is Ready once started) and liveness (failureThreshold failures kill the container).
// httpGet (2xx/3xx is success; HTTPS without verification, as the kubelet does) and tcpSocket run
// for real against the container's local port. exec and grpc probes are stood in for by a TCP
// connect (to the grpc port, or to each declared port for exec): the mapped OLM/opm images have no
// grpc_health_probe, and the runner does not exec into containers.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:net";
import type { Container, Probe } from "./pod-spec.js";
import type { PodPorts } from "./ports.js";

export interface ProbeEvents {
  /** Readiness changed (also once started without a readiness probe). */
  ready(ready: boolean): void;
  /** The startup probe passed (or there is none). */
  started(): void;
  /** The startup or liveness probe failed failureThreshold times: the kubelet kills the container. */
  unhealthy(message: string): void;
}

export class ContainerProbes {
  private readonly abort = new AbortController();

  constructor(
    private readonly container: Container,
    private readonly ports: PodPorts,
    private readonly podIP: string,
    private readonly events: ProbeEvents,
  ) {}

  start(): void {
    void this.run().catch(() => undefined);
  }

  stop(): void {
    this.abort.abort();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    const { startupProbe, readinessProbe, livenessProbe } = this.container;
    if (startupProbe && !(await this.untilStarted(startupProbe))) return;
    if (this.stopped) return;
    this.events.started();
    if (!readinessProbe) this.events.ready(true);
    else void this.readiness(readinessProbe);
    if (livenessProbe) void this.liveness(livenessProbe);
  }

  private async untilStarted(probe: Probe): Promise<boolean> {
    await this.sleep(orDefault(probe.initialDelaySeconds, 0));
    for (let failures = 0; !this.stopped;) {
      if (await this.check(probe)) return true;
      if (++failures >= orDefault(probe.failureThreshold, 3)) {
        if (!this.stopped) this.events.unhealthy(`Startup probe failed ${failures} times`);
        return false;
      }
      await this.sleep(orDefault(probe.periodSeconds, 10));
    }
    return false;
  }

  private async readiness(probe: Probe): Promise<void> {
    await this.sleep(orDefault(probe.initialDelaySeconds, 0));
    let ready = false;
    let successes = 0;
    let failures = 0;
    let ever = false;
    while (!this.stopped) {
      const ok = await this.check(probe);
      if (this.stopped) return;
      ever ||= ok;
      successes = ok ? successes + 1 : 0;
      failures = ok ? 0 : failures + 1;
      if (!ready && successes >= orDefault(probe.successThreshold, 1)) {
        ready = true;
        this.events.ready(true);
      } else if (ready && failures >= orDefault(probe.failureThreshold, 3)) {
        ready = false;
        this.events.ready(false);
      }
      // Until the first success the runner probes every 0.2 s (a kubelet waits periodSeconds):
      // every bed start would otherwise wait a period for each pod that was not listening yet.
      await this.sleep(ever ? orDefault(probe.periodSeconds, 10) : 0.2);
    }
  }

  private async liveness(probe: Probe): Promise<void> {
    await this.sleep(orDefault(probe.initialDelaySeconds, 0));
    for (let failures = 0; !this.stopped;) {
      const ok = await this.check(probe);
      if (this.stopped) return;
      failures = ok ? 0 : failures + 1;
      if (failures >= orDefault(probe.failureThreshold, 3)) {
        this.events.unhealthy(`Liveness probe failed ${failures} times`);
        return;
      }
      await this.sleep(orDefault(probe.periodSeconds, 10));
    }
  }

  /** One probe run, true on success. */
  check(probe: Probe): Promise<boolean> {
    const timeoutMs = orDefault(probe.timeoutSeconds, 1) * 1000;
    if (probe.httpGet) {
      const port = this.ports.hostPort(probe.httpGet.port);
      return port === undefined
        ? Promise.resolve(false)
        : httpProbe(probe.httpGet, port, this.podIP, timeoutMs);
    }
    const ref = probe.tcpSocket?.port ?? probe.grpc?.port;
    if (ref !== undefined) {
      const port = this.ports.hostPort(ref);
      return port === undefined ? Promise.resolve(false) : accepts(port, timeoutMs);
    }
    // exec: every declared port accepts connections.
    const declared = (this.container.ports ?? []).map((p) => this.ports.hostPort(p.containerPort)!);
    return Promise.all(declared.map((p) => accepts(p, timeoutMs))).then((all) => all.every(Boolean));
  }

  private sleep(secondsToWait: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve();
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.abort.signal.removeEventListener("abort", onAbort);
        resolve();
      }, secondsToWait * 1000);
      this.abort.signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

const orDefault = (value: number | undefined, fallback: number) => (value && value > 0 ? value : fallback);

function httpProbe(
  spec: NonNullable<Probe["httpGet"]>,
  port: number,
  podIP: string,
  timeoutMs: number,
): Promise<boolean> {
  const https = spec.scheme === "HTTPS";
  const headers: Record<string, string> = { "User-Agent": "kube-probe/1.34", Accept: "*/*" };
  headers.Host = `${spec.host ?? podIP}:${port}`;
  for (const h of spec.httpHeaders ?? []) headers[h.name] = h.value;
  const path = spec.path ? (spec.path.startsWith("/") ? spec.path : `/${spec.path}`) : "/";
  return new Promise((resolve) => {
    const options = { host: "127.0.0.1", port, path, method: "GET", headers, timeout: timeoutMs };
    const req = https
      ? httpsRequest({ ...options, rejectUnauthorized: false }, done)
      : httpRequest(options, done);
    function done(res: { statusCode?: number; resume(): void }) {
      res.resume();
      const status = res.statusCode ?? 0;
      resolve(status >= 200 && status < 400);
    }
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}

export function accepts(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.setTimeout(timeoutMs, () => {
      s.destroy();
      resolve(false);
    });
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}
