// The README's workflow on the real test bed, cluster lines included: every line of the "The
// workflow" block runs as written in a shell with `tsop` on PATH, KUBECONFIG pointing at a real
// kube-apiserver with the pod runner but no OLM yet (the README's own `tsop olm install` installs
// it), and a real TLS registry on 127.0.0.1 (its CA given the documented way, SSL_CERT_FILE)
// standing in for registry.example.com. `tsop run local --watch` runs until the sample CR has
// reconciled; the v0.0.2 bundle for `run bundle-upgrade` is built with the README's own image
// build, bundle and bundle push lines at 0.0.2. What the cluster holds is read with kubectl, and
// the manager image each Deployment runs is read back from the registry with skopeo. The bed's pod
// runner pulls and runs those manager pods (their images are on 127.0.0.1), so `run bundle` reaches
// CSV Succeeded only once the operator really answers its readiness probe; test/operator/ follows
// such an operator further (reconciles, upgrades, leader election).
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { TSOP_BIN } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { testdir } from "../support/testdir.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { pushStandInOpmBase } from "../catalog/opm-base.js";
import { added, leftovers, snapshot } from "../run/bed.js";
import { workflowLines } from "./readme-workflow-lines.js";

let registry: TestRegistry;
let bed: OlmBed;

beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  await pushNodeBase(registry, "node", "20");
  // `tsop catalog image` cannot reach quay.io either: its opm base comes from TSOP_CATALOG_BASE (a
  // stand-in; the catalog image is not run here).
  await pushStandInOpmBase(registry);
  bed = await startOlmBed({ olm: false });
}, 900_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
}, 120_000);

type Env = Record<string, string>;
const CRD = "memcacheds.cache.example.com";

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

/** The namespace/name:phase of every non-copied CSV in the cluster. */
async function csvs(env: Env): Promise<string[]> {
  const list = await kubectl(env, ["get", "clusterserviceversions", "-A"]);
  return (list.items ?? [])
    .filter((c) => !c.metadata.labels?.["olm.copiedFrom"] && c.metadata.name !== "packageserver")
    .map((c) => `${c.metadata.namespace}/${c.metadata.name}:${c.status?.phase}`)
    .sort();
}

type PodSpec = { containers: Array<{ name: string; image: string }> };

/** The image of every `manager` container of the Deployments in `namespace`. */
async function managerImages(env: Env, namespace: string): Promise<string[]> {
  const list = await kubectl(env, ["get", "deployments", "-n", namespace]);
  return (list.items ?? []).flatMap((d) =>
    (d.spec as { template: { spec: PodSpec } }).template.spec.containers
      .filter((c) => c.name === "manager")
      .map((c) => c.image),
  );
}

/**
 * The manager image in `namespace` is `expected` (or its repository at some digest) and the
 * registry serves it: what a real kubelet needs to start the operator.
 */
async function expectPullableManager(env: Env, namespace: string, expected: string): Promise<void> {
  const images = await managerImages(env, namespace);
  expect(images, `manager images in ${namespace}`).toHaveLength(1);
  const image = images[0]!;
  const repository = expected.slice(0, expected.lastIndexOf(":"));
  expect([expected, repository].includes(image.replace(/@sha256:[0-9a-f]{64}$/, "")), image).toBe(true);
  const inspected = await execa("skopeo", ["inspect", "--raw", `docker://${image}`], {
    env,
    reject: false,
    all: true,
  });
  expect(inspected.exitCode, `the registry does not serve ${image}: ${inspected.all}`).toBe(0);
}

/** The CRD is Established on the real apiserver. */
async function expectCrdEstablished(env: Env): Promise<void> {
  const crd = await kubectl(env, ["get", "crd", CRD]);
  const conditions = (crd.status?.conditions ?? []) as Array<{ type: string; status: string }>;
  expect(conditions).toContainEqual(expect.objectContaining({ type: "Established", status: "True" }));
}

/** What the default namespace holds, for a failure message: the CR, Deployments and Pods. */
async function describeDefault(env: Env): Promise<string> {
  const args = ["get", "memcached,deployments,replicasets,pods", "-n", "default", "-o", "yaml"];
  const { stdout, stderr } = await execa("kubectl", args, { env, reject: false });
  return `${stdout}\n${stderr}`.slice(-8000);
}

/**
 * What stays with the kept CRD belongs to it, not to the removed operator: OLM's ClusterRoles for
 * the API name the CRD as their owner (the garbage collector removes them with it), and the
 * APIService is the one kube-apiserver registers itself for a CRD's group and version.
 */
async function expectKeptWithCrd(env: Env): Promise<void> {
  const crd = await kubectl(env, ["get", "crd", CRD]);
  const roles = await kubectl(env, ["get", "clusterroles", "-l", "olm.managed=true"]);
  const mine = (roles.items ?? []).filter((r) => (r.metadata.name ?? "").startsWith(`${CRD}-`));
  expect(mine).toHaveLength(4);
  for (const role of mine) {
    expect(role.metadata.ownerReferences, role.metadata.name).toEqual([
      // OLM spells the kind in lower case; the garbage collector goes by uid.
      expect.objectContaining({ name: CRD, uid: crd.metadata.uid }),
    ]);
  }
  const service = await kubectl(env, ["get", "apiservice", "v1alpha1.cache.example.com"]);
  expect(service.metadata.labels?.["kube-aggregator.kubernetes.io/automanaged"]).toBe("true");
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
      "the sample CR's Available condition",
      async () => {
        const cr = await kubectl(env, ["get", "memcached", "memcached-sample", "-n", "default"]);
        const available = ((cr.status?.conditions ?? []) as Array<{ type: string; status: string }>).find(
          (c) => c.type === "Available",
        );
        return available?.status === "True" ? true : undefined;
      },
      180_000,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await describeDefault(env)}\nmanager:\n${err.slice(-4000)}`);
    });
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

/** A shell with `tsop` on PATH (as `npm link` puts it) and what a user's shell would export. */
async function userShell(): Promise<{ home: string; bin: string; env: Env }> {
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
    TSOP_CATALOG_BASE: `${registry.host}/opm:v1.47.0`,
    KUBECONFIG: bed.cluster.kubeconfigPath,
  };
  return { home, bin, env };
}

it("runs the README's workflow as written on a real cluster with real OLM", async () => {
  const { home, bin, env } = await userShell();
  const sh = async (line: string, cwd: string) => {
    const result = await execa("sh", ["-c", line], { cwd, env, reject: false, all: true, timeout: 900_000 });
    expect(result.exitCode, `${line}\n${String(result.all).slice(-6000)}`).toBe(0);
    return String(result.all);
  };
  const lines = (await workflowLines()).map((l) => l.replaceAll("registry.example.com", registry.host));
  const line = (prefix: string) => lines.find((l) => l.startsWith(prefix))!;
  /** The cluster before any README line, and after `tsop olm install`. */
  const pristine = await snapshot(bed.cluster.kubeconfigPath);
  let withOlm = pristine;

  let cwd = home;
  const ran: string[] = [];
  for (const current of lines) {
    if (current.startsWith("cd ")) {
      cwd = join(cwd, current.slice(3));
      continue;
    }
    ran.push(current.split(" ").slice(0, 3).join(" "));
    if (current === "tsop run local --watch") {
      await runLocalUntilReconciled(bin, cwd, env);
      continue;
    }
    if (current.startsWith("tsop run bundle-upgrade ")) {
      // The next version: the README's own image build, bundle and push lines at 0.0.2.
      for (const prefix of ["tsop image build", "tsop bundle --version", "tsop bundle push"]) {
        // The version only: the registry's 127.0.0.1 stays.
        await sh(line(prefix).replace(/(?<![\d.])0\.0\.1\b/g, "0.0.2"), cwd);
      }
    }
    await sh(current, cwd);
    if (current === "tsop install") {
      await expectCrdEstablished(env);
    } else if (current.startsWith("tsop deploy --image ")) {
      const image = current.split(" ")[3]!;
      await expectPullableManager(env, "memcached-operator-system", image);
    } else if (current.startsWith("tsop undeploy")) {
      // "back to a clean cluster": nothing the README's lines made so far is left.
      expect(await leftovers(bed.cluster.kubeconfigPath, pristine)).toEqual([]);
    } else if (current === "tsop olm install") {
      withOlm = await snapshot(bed.cluster.kubeconfigPath);
    } else if (current.startsWith("tsop run bundle ")) {
      expect(await csvs(env)).toEqual(["default/memcached-operator.v0.0.1:Succeeded"]);
      await expectPullableManager(env, "default", `${registry.host}/memcached-operator:0.0.1`);
    } else if (current.startsWith("tsop run bundle-upgrade ")) {
      expect(await csvs(env)).toEqual(["default/memcached-operator.v0.0.2:Succeeded"]);
      await expectPullableManager(env, "default", `${registry.host}/memcached-operator:0.0.2`);
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
  // cleanup removed everything run bundle and bundle-upgrade made; only the CRD stays, as tsop's
  // cleanup keeps CRDs (and the custom resources in them) unless --delete-crds says otherwise, and
  // with it what hangs off it (expectKeptWithCrd), nothing else.
  const kept = [
    `APIService v1alpha1.cache.example.com`,
    ...["admin", "crdview", "edit", "view"].map((s) => `ClusterRole ${CRD}-v1alpha1-${s}`),
    `CustomResourceDefinition ${CRD}`,
  ];
  const left = await eventually(
    "cleanup to finish",
    async () => {
      const left = added(withOlm, await snapshot(bed.cluster.kubeconfigPath));
      return left.join() === kept.join() ? left : undefined;
    },
    90_000,
  ).catch(async () => added(withOlm, await snapshot(bed.cluster.kubeconfigPath)));
  expect(left).toEqual(kept);
  await expectKeptWithCrd(env);
  // ... and took nothing of OLM's with it.
  expect(added(await snapshot(bed.cluster.kubeconfigPath), withOlm)).toEqual([]);
}, 3_000_000);
