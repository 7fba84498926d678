// The real control plane stops everything it started: on stop(), and when the process that started
// it is SIGKILLed (its reaper kills the components' process groups and removes the directory).
import { execa } from "execa";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startTestCluster } from "../../../src/testing/index.js";
import { REPO_ROOT } from "../../support/cli.js";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pids: number[], timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(alive);
}

describe("real control plane clean-up", () => {
  it("stop() ends every component and removes the cluster's directory; a second stop() is harmless", async () => {
    const cluster = await startTestCluster({ controlPlane: "real", workloads: true });
    const pids = cluster.processes().map((p) => p.pid);
    expect(pids).toHaveLength(5);
    expect(existsSync(cluster.kubeconfigPath)).toBe(true);
    const stopping = Date.now();
    await cluster.stop();
    expect(Date.now() - stopping).toBeLessThan(15_000);
    expect(pids.filter(alive)).toEqual([]);
    expect(cluster.processes()).toEqual([]);
    expect(existsSync(cluster.dataDir)).toBe(false);
    await cluster.stop();
  });

  it("a SIGKILLed test process leaves no component running and no directory behind", async () => {
    const child = execa(
      process.execPath,
      ["--import", "tsx", join(REPO_ROOT, "test/support/real-cluster-child.ts"), "--workloads"],
      {
        cwd: REPO_ROOT,
        reject: false,
      },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (d) => {
        out += String(d);
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      child.on("exit", () => reject(new Error(`the child exited before starting the cluster: ${out}`)));
    });
    const started = JSON.parse(line) as { processes: Array<{ name: string; pid: number }>; dataDir: string };
    const pids = started.processes.map((p) => p.pid);
    expect(started.processes.map((p) => p.name)).toEqual([
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kwok",
    ]);
    expect(pids.every(alive)).toBe(true);
    child.kill("SIGKILL");
    await child;
    expect(await gone(pids)).toEqual([]);
    const deadline = Date.now() + 5000;
    while (existsSync(started.dataDir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(started.dataDir)).toBe(false);
  });
});
