// Shared by the real-tier tests in which the scaffolded memcached operator really runs on the test
// bed: the project made by the built CLI (`tsop init` + `tsop create api`, built with npm), its
// image built by `tsop image build` on a Node base this machine assembles and pushed to a registry
// on 127.0.0.1, kubectl as the oracle, and the pod runner's view of the operator's process.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { expect } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { runTsop } from "../support/cli.js";
import type { TestRegistry } from "../support/registry.js";
import type { PodRunner } from "../support/rig/pod-runner.js";

export const CONTROLLER = "src/controllers/memcached.controller.ts";

/** Runs the built CLI in `cwd`; fails the test with its stderr unless it exits 0. */
export async function tsop(cwd: string, args: string[]): Promise<string> {
  const result = await runTsop(args, { cwd, timeoutMs: 420_000 });
  expect(result.exitCode, `tsop ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout.trim();
}

/** `tsop init` + `tsop create api` for Memcached in <work>/memcached-operator, built. */
export async function scaffoldMemcached(work: string): Promise<string> {
  const project = join(work, "memcached-operator");
  await tsop(work, ["init", project, "--domain", "example.com"]);
  await tsop(project, ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
  await execa("npm", ["run", "build"], { cwd: project });
  return project;
}

/** Pushes the Node base the operator images are built on; returns its reference. */
export async function pushBase(registry: TestRegistry): Promise<string> {
  await pushNodeBase(registry, "base/node", "20");
  return `${registry.host}/base/node:20`;
}

/** `tsop image build --push <registry>/memcached-operator:<tag>`; returns the digest-pinned reference it prints. */
export async function buildImage(project: string, registry: TestRegistry, tag: string): Promise<string> {
  const base = `${registry.host}/base/node:20`;
  const image = `${registry.host}/memcached-operator:${tag}`;
  return tsop(project, [
    "image",
    "build",
    "--base",
    base,
    "--push",
    image,
    `--plain-http=${registry.host}`,
    "-q",
  ]);
}

/** Edits a project file in place (the test's change to the operator's source). */
export async function edit(project: string, file: string, from: string, to: string): Promise<void> {
  const path = join(project, file);
  const text = await readFile(path, "utf8");
  expect(text, `${file} holds ${from}`).toContain(from);
  await writeFile(path, text.replace(from, to));
}

export type Env = Record<string, string>;

export async function kubectl(env: Env, args: string[], options: { input?: string; cwd?: string } = {}) {
  return execa("kubectl", args, { env, ...options, reject: false, all: true });
}

export async function kubectlJson<T = KubeObject>(env: Env, args: string[]): Promise<T> {
  const result = await kubectl(env, [...args, "-o", "json"]);
  if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(" ")}: ${result.all}`);
  return JSON.parse(result.stdout) as T;
}

/** Polls `probe` (a kubectl call per round) until it returns a value; the error names `what`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 180_000,
  describe: () => Promise<string> = async () => "",
): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${await describe()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

type Condition = { type: string; status: string; reason?: string; message?: string };

export const conditionOf = (o: KubeObject | undefined, type: string): Condition | undefined =>
  ((o?.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);

interface PodJson extends KubeObject {
  spec: { containers: Array<{ name: string; image: string }> };
}

/** The operator pods (label control-plane=controller-manager) in `namespace`, by kubectl. */
export async function managerPods(env: Env, namespace: string): Promise<PodJson[]> {
  const list = await kubectlJson<{ items: PodJson[] }>(env, [
    "get",
    "pods",
    "-n",
    namespace,
    "-l",
    "control-plane=controller-manager",
  ]);
  return list.items.filter((p) => !p.metadata.deletionTimestamp);
}

/**
 * The one Ready operator pod in `namespace` that runs `image`, with a live process of the pod
 * runner behind it: the operator really runs.
 */
export async function runningManager(env: Env, runner: PodRunner, namespace: string, image: string) {
  return eventually(
    `a Ready manager pod running ${image} in ${namespace}`,
    async () => {
      const pods = await managerPods(env, namespace);
      const pod = pods.find((p) => p.spec.containers.some((c) => c.image === image));
      if (!pod || conditionOf(pod, "Ready")?.status !== "True") return undefined;
      const pids = runner.podPids(namespace, pod.metadata.name ?? "");
      return pids.length > 0 ? { name: pod.metadata.name ?? "", pids } : undefined;
    },
    240_000,
    async () =>
      (await kubectl(env, ["get", "pods,deployments,csv", "-n", namespace, "-o", "yaml"])).all?.slice(
        -8000,
      ) ?? "",
  );
}

/** Whether a process id is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The manager container's log (`kubectl logs`, through the runner's kubelet API). */
export async function managerLogs(env: Env, namespace: string, pod: string): Promise<string> {
  const result = await kubectl(env, ["logs", "-n", namespace, pod, "-c", "manager"]);
  expect(result.exitCode, result.all).toBe(0);
  return result.stdout;
}
