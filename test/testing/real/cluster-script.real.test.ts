// `npm run cluster -- --no-olm --kubeconfig FILE` runs the real test bed for people and scripts:
// it prints the kubeconfig path, the registry on 127.0.0.1 and the Node.js base in it on lines of
// their own; kubectl works against it (a Ready kwok Node), a pod with the base image really runs
// (its output through `kubectl logs`), and SIGINT stops every component it started.
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

it("starts the real control plane with kwok, a registry and a Node base whose pods really run, serves kubectl, and stops everything on SIGINT", async () => {
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  // "exec node …": the shell npm runs it in is replaced, so signals sent to npm reach the bed.
  const [exec, node, ...script] = pkg.scripts.cluster!.split(" ");
  expect(exec).toBe("exec");
  expect(node).toBe("node");
  const kubeconfig = join(dir, "nested", "kubeconfig");
  const child = execa(process.execPath, [...script, "--no-olm", "--kubeconfig", kubeconfig], {
    cwd: REPO_ROOT,
    reject: false,
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (d) => (err += String(d)));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      out += String(d);
      if (out.includes("Press Ctrl-C")) resolve();
    });
    child.on("exit", () => reject(new Error(`npm run cluster exited early:\n${out}${err}`)));
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

    const registry = /^registry: (127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
    expect(registry, out).toBeDefined();
    expect(out).toMatch(new RegExp(`^base: ${registry}/base/node:20$`, "m"));
    // The catalog's base, made from the rig's opm: `tsop catalog image --base` accepts it.
    expect(out).toMatch(new RegExp(`^opm base: ${registry}/mirror/opm:v1.47.0$`, "m"));
    const env = { KUBECONFIG: kubeconfig };
    const run = await execa(
      "kubectl",
      [
        "run",
        "hello",
        "--image",
        `${registry}/base/node:20`,
        "--restart=Never",
        "--",
        "-e",
        "console.log('hello from', process.version)",
      ],
      { env, reject: false, all: true },
    );
    expect(run.exitCode, run.all).toBe(0);
    let logs = "";
    for (const deadline = Date.now() + 120_000; Date.now() < deadline && !logs.startsWith("hello");) {
      await new Promise((r) => setTimeout(r, 500));
      logs = (await execa("kubectl", ["logs", "hello"], { env, reject: false })).stdout;
    }
    expect(logs).toBe(`hello from ${process.version}`);
  } finally {
    child.kill("SIGINT");
  }
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(0);
  expect(pids.filter(alive)).toEqual([]);
  expect(existsSync(dataDir)).toBe(false);
});
