// A pod's ports on the shared host network. Every port the pod declares (containerPort) or that a
// probe names gets a free local port; a command-line argument that ends in one of those ports
// ("8080", "--secure-port=5443", "--metrics-bind-address=:8080", "0.0.0.0:8081") is rewritten to the
// local port. A port that appears nowhere in any command line is hard-coded in the program (OLM's
// operators serve metrics on :8080): it keeps its number, shared with the host.
import type { Container, Probe } from "./pod-spec.js";

export class PodPorts {
  /** containerPort → local port. */
  private readonly local = new Map<number, number>();
  private readonly names = new Map<string, number>();

  static async allocate(containers: Container[], freePort: () => Promise<number>): Promise<PodPorts> {
    const ports = new PodPorts();
    for (const c of containers) {
      for (const p of c.ports ?? []) {
        if (p.name) ports.names.set(p.name, p.containerPort);
        if (!ports.local.has(p.containerPort)) ports.local.set(p.containerPort, await freePort());
      }
    }
    for (const c of containers) {
      for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
        const port = probePort(probe);
        if (typeof port === "number" && !ports.local.has(port)) ports.local.set(port, await freePort());
      }
    }
    return ports;
  }

  /** The containerPort a port reference (number or name) means. */
  containerPort(ref: number | string): number | undefined {
    if (typeof ref === "number") return ref;
    return /^\d+$/.test(ref) ? Number(ref) : this.names.get(ref);
  }

  /** Where the process listening on containerPort `ref` really listens. */
  hostPort(ref: number | string): number | undefined {
    const port = this.containerPort(ref);
    return port === undefined ? undefined : (this.local.get(port) ?? port);
  }

  /** Rewrites every argument ending in a pod port to the local port. */
  rewrite(argv: string[]): string[] {
    return argv.map((arg, i) => {
      if (i === 0) return arg;
      const m = /^(|.*[:=])(\d+)$/.exec(arg);
      const local = m ? this.local.get(Number(m[2])) : undefined;
      return local === undefined ? arg : `${m![1]}${local}`;
    });
  }

  /** After every container's command line is known: ports none of them names keep their number. */
  keepHardCoded(commandLines: string[][]): void {
    for (const [port, local] of this.local) {
      const named = commandLines.some((argv) =>
        this.rewrite(argv).some((arg, i) => arg !== argv[i] && arg.endsWith(String(local))),
      );
      if (!named) this.local.set(port, port);
    }
  }

  /** The declared ports of `containers` with their local ports, for the address book. */
  endpoints(containers: Container[]): Array<{ containerPort: number; name?: string; hostPort: number }> {
    return containers.flatMap((c) =>
      (c.ports ?? []).map((p) => ({
        containerPort: p.containerPort,
        name: p.name,
        hostPort: this.hostPort(p.containerPort)!,
      })),
    );
  }
}

function probePort(probe: Probe | undefined): number | string | undefined {
  return probe?.httpGet?.port ?? probe?.tcpSocket?.port ?? probe?.grpc?.port;
}
