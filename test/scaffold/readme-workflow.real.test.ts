// The README's workflow on the real test bed, cluster lines included: every line of the "The
// workflow" block runs as written in a shell with `tsop` on PATH, KUBECONFIG pointing at a real
// kube-apiserver with the pod runner but no OLM yet (the README's own `tsop olm install` installs
// it), and a real TLS registry on 127.0.0.1 (its CA given the documented way, SSL_CERT_FILE)
// standing in for registry.example.com. `tsop run local --watch` runs until the sample CR has
// reconciled; the v0.0.2 bundle for `run bundle-upgrade` is built with the README's own bundle
// lines at 0.0.2. What the cluster holds is read with kubectl.
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { TSOP_BIN } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { testdir } from "../support/testdir.js";
import { pushNodeBase } from "../image/node-base.js";
import { workflowLines } from "./readme-workflow-lines.js";

let registry: TestRegistry;
let bed: OlmBed;

beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  await pushNodeBase(registry, "node", "20");
  bed = await startOlmBed({ olm: false });
}, 900_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
}, 120_000);

type Env = Record<string, string>;

/** Polls `probe` every second (kubectl is a process start per probe) until it returns a value. */
async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function kubectl(env: Env, args: string[]): Promise<KubeObject & { items?: KubeObject[] }> {
  const { stdout } = await execa("kubectl", [...args, "-o", "json"], { env });
  return JSON.parse(stdout) as KubeObject & { items?: KubeObject[] };
}

/** The namespace/name of every non-copied CSV in the cluster. */
async function csvs(env: Env): Promise<string[]> {
  const list = await kubectl(env, ["get", "clusterserviceversions", "-A"]);
  return (list.items ?? [])
    .filter((c) => !c.metadata.labels?.["olm.copiedFrom"] && c.metadata.name !== "packageserver")
    .map((c) => `${c.metadata.namespace}/${c.metadata.name}:${c.status?.phase}`)
    .sort();
}

/** `tsop run local --watch` until the sample CR reconciled (its Deployment, its Available condition). */
async function runLocalUntilReconciled(bin: string, cwd: string, env: Env): Promise<void> {
  let err = "";
  const child = execa(join(bin, "tsop"), ["run", "local", "--watch"], { cwd, env, reject: false });
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  try {
    await eventually(
      "the manager to run",
      async () => (/manager running/.test(err) ? true : undefined),
      300_000,
    );
    const sample = "config/samples/cache_v1alpha1_memcached.yaml";
    await execa("kubectl", ["apply", "-f", sample, "-n", "default"], { cwd, env });
    await eventually(
      `the sample CR's Available condition\n${err}`,
      async () => {
        const cr = await kubectl(env, ["get", "memcached", "memcached-sample", "-n", "default"]);
        const available = ((cr.status?.conditions ?? []) as Array<{ type: string; status: string }>).find(
          (c) => c.type === "Available",
        );
        return available?.status === "True" ? true : undefined;
      },
      120_000,
    );
    const deployment = await kubectl(env, ["get", "deployment", "memcached-sample", "-n", "default"]);
    expect(deployment.metadata.ownerReferences?.[0]?.kind).toBe("Memcached");
    // Deleted while the manager runs: it removes its finalizer.
    await execa("kubectl", ["delete", "-f", sample, "-n", "default", "--wait", "--timeout=60s"], {
      cwd,
      env,
    });
  } finally {
    child.kill("SIGINT");
  }
  const result = await child;
  expect(result.exitCode, err.slice(-4000)).toBe(0);
}

it("runs the README's workflow as written on a real cluster with real OLM", async () => {
  const home = await testdir();
  const bin = join(home, "bin");
  await execa("mkdir", ["-p", bin]);
  await writeFile(join(bin, "tsop"), `#!/bin/sh\nexec '${process.execPath}' '${TSOP_BIN}' "$@"\n`);
  await chmod(join(bin, "tsop"), 0o755);
  const env: Env = {
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    CI: "1",
    NO_COLOR: "1",
    SSL_CERT_FILE: registry.caFile!,
    TSOP_IMAGE_BASE: `${registry.host}/node:20`,
    KUBECONFIG: bed.cluster.kubeconfigPath,
  };
  const sh = async (line: string, cwd: string) => {
    const result = await execa("sh", ["-c", line], { cwd, env, reject: false, all: true, timeout: 900_000 });
    expect(result.exitCode, `${line}\n${String(result.all).slice(-6000)}`).toBe(0);
    return String(result.all);
  };

  const lines = await workflowLines();
  let cwd = home;
  const ran: string[] = [];
  for (const raw of lines) {
    const line = raw.replaceAll("registry.example.com", registry.host);
    if (line.startsWith("cd ")) {
      cwd = join(cwd, line.slice(3));
      continue;
    }
    ran.push(raw.split(" ").slice(0, 3).join(" "));
    if (line === "tsop run local --watch") {
      await runLocalUntilReconciled(bin, cwd, env);
      continue;
    }
    if (line.startsWith("tsop run bundle-upgrade ")) {
      // The next version, built and pushed with the README's own bundle lines.
      const bundle = lines.find((l) => l.startsWith("tsop bundle --version"))!;
      const push = lines.find((l) => l.startsWith("tsop bundle push"))!;
      await sh(bundle.replace("0.0.1", "0.0.2"), cwd);
      await sh(push.replaceAll("registry.example.com", registry.host).replace(":v0.0.1", ":v0.0.2"), cwd);
    }
    await sh(line, cwd);
    if (line.startsWith("tsop run bundle ")) {
      expect(await csvs(env)).toEqual(["default/memcached-operator.v0.0.1:Succeeded"]);
    } else if (line.startsWith("tsop run bundle-upgrade ")) {
      expect(await csvs(env)).toEqual(["default/memcached-operator.v0.0.2:Succeeded"]);
    } else if (line.startsWith("tsop undeploy")) {
      await expect(
        execa("kubectl", ["get", "crd", "memcacheds.cache.example.com"], { env }),
      ).rejects.toThrow();
    }
  }
  // Every cluster line of the block ran here (the fast tier lists the same ones as skipped).
  expect(ran).toEqual(
    expect.arrayContaining([
      "tsop install",
      "tsop run local",
      "tsop deploy --image",
      "tsop undeploy --delete-crds",
      "tsop olm install",
      "tsop run bundle",
      "tsop run bundle-upgrade",
      "tsop cleanup memcached-operator",
    ]),
  );
  // cleanup removed the operator: no CSV, Subscription or CatalogSource of it is left.
  expect(await csvs(env)).toEqual([]);
  const subs = await kubectl(env, ["get", "subscriptions", "-A"]);
  expect(subs.items).toEqual([]);
  const catalogs = await kubectl(env, ["get", "catalogsources", "-A"]);
  expect((catalogs.items ?? []).map((c) => c.metadata.name)).toEqual(["operatorhubio-catalog"]);
}, 3_000_000);
