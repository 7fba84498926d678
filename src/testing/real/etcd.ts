// etcd for one test cluster: a fresh data directory, client and peer URLs on free loopback ports,
// no fsync (test data is disposable, and fsync dominates start-up and write latency).
import { join } from "node:path";
import { Component, waitUntilReady } from "./process.js";
import { freePort, probe } from "./net.js";
import type { Reaper } from "./reaper.js";

export interface Etcd {
  component: Component;
  url: string;
}

export async function startEtcd(
  binary: string,
  dir: string,
  reaper: Reaper,
  timeoutMs: number,
): Promise<Etcd> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const component = Component.start(
    {
      name: "etcd",
      binary,
      logFile: join(dir, "etcd.log"),
      args: [
        "--name=default",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=default=${peer}`,
        "--unsafe-no-fsync=true",
        "--log-level=warn",
      ],
    },
    reaper,
  );
  await waitUntilReady(
    component,
    async () => {
      const r = await probe(`${url}/health`, { timeoutMs: 2000 });
      return r.status === 200 && /"health":\s*"true"/.test(r.body);
    },
    timeoutMs,
  );
  return { component, url };
}
