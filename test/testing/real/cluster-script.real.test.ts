// `npm run cluster -- --no-olm --kubeconfig FILE` runs the real test bed for people and scripts:
// it prints the kubeconfig path on a line of its own, kubectl works against it (a Ready kwok Node),
// and SIGINT stops every component it started.
import { execa } from "execa";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "../../support/cli.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tsop-cluster-script-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it("starts the real control plane with kwok, serves kubectl, and stops everything on SIGINT", async () => {
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const [node, ...script] = pkg.scripts.cluster!.split(" ");
  expect(node).toBe("node");
  const kubeconfig = join(dir, "nested", "kubeconfig");
  const child = execa(process.execPath, [...script, "--no-olm", "--kubeconfig", kubeconfig], {
    cwd: REPO_ROOT,
    reject: false,
  });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      out += String(d);
      if (out.includes("Press Ctrl-C")) resolve();
    });
    child.on("exit", () => reject(new Error(`npm run cluster exited early:\n${out}`)));
  });
  const dataDir = /logs in (\S+)/.exec(out)![1]!;
  let pids: number[] = [];
  try {
    expect(out).toMatch(new RegExp(`^kubeconfig: ${kubeconfig}$`, "m"));
    expect(out).toContain("Kubernetes v1.34.4, no OLM");
    const nodes = await execa("kubectl", ["--kubeconfig", kubeconfig, "get", "nodes", "--no-headers"], {
      reject: false,
    });
    expect(nodes.stdout, nodes.stderr).toMatch(/^kwok-node-0\s+Ready\s/);
    const ps = await execa("ps", ["-eo", "pid,args"]);
    pids = ps.stdout
      .split("\n")
      .filter((line) => line.includes(dataDir) && /etcd|kube-|kwok/.test(line))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
    expect(pids.length).toBe(5);
  } finally {
    child.kill("SIGINT");
  }
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(0);
  expect(pids.filter(alive)).toEqual([]);
  expect(existsSync(dataDir)).toBe(false);
});
