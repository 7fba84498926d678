// Test environment for run bundle / bundle-upgrade / cleanup: tsop/testing (workloads mode) with
// OLM's CRDs, the OLM model, and a real local registry (Debian docker-registry) holding the fixture
// bundles, pushed by the built CLI's `tsop bundle push`.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { TsopError } from "../../src/common/errors.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import type { RunBundleOptions } from "../../src/olm/run/run-bundle.js";
import { KubeClient } from "../../src/kube/client.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { applyAll } from "../../src/kube/apply.js";
import { startTestCluster, type TestCluster, type TestClusterOptions } from "../../src/testing/index.js";
import { type OlmModel, type OlmModelOptions, startOlmModel } from "../support/olm-model/index.js";
import { type RegistryAuth, startRegistry, type TestRegistry } from "../support/registry.js";
import { pushBundle, withoutRequiredApis } from "./bed.js";

const OLM_CRDS = fileURLToPath(new URL("../../olm-releases/v0.28.0/crds.yaml", import.meta.url));

export interface BundleRegistry {
  registry: TestRegistry;
  image(version: "0.0.1" | "0.0.2"): string;
  /** The 0.0.1 bundle that still requires certificates.cert.example.com (which nothing provides). */
  requires: string;
  /** Env that lets tsop's pull authenticate (REGISTRY_AUTH_FILE for the htpasswd variant). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** A registry with memcached-bundle:v0.0.1 and :v0.0.2 pushed by `tsop bundle push`. */
export async function startBundleRegistry(auth: RegistryAuth = "none"): Promise<BundleRegistry> {
  const registry = await startRegistry({ auth });
  const dir = await mkdtemp(join(tmpdir(), "tsop-run-auth-"));
  const env: Record<string, string> = {};
  if (auth === "htpasswd") {
    const [user, password] = Object.entries(registry.users)[0] as [string, string];
    const authFile = join(dir, "auth.json");
    await writeFile(
      authFile,
      JSON.stringify({
        auths: { [registry.host]: { auth: Buffer.from(`${user}:${password}`).toString("base64") } },
      }),
    );
    env.REGISTRY_AUTH_FILE = authFile;
  }
  // As on a real cluster, nothing provides the API the fixture requires, so the bundles most tests
  // install leave that requirement out; memcached-requires keeps it.
  for (const v of ["0.0.1", "0.0.2"] as const) {
    await pushBundle(registry, "memcached-bundle", v, withoutRequiredApis, ["--plain-http"], {
      ...env,
      HOME: dir,
    });
  }
  const requires = await pushBundle(registry, "memcached-requires", "0.0.1", undefined, ["--plain-http"], {
    ...env,
    HOME: dir,
  });
  return {
    registry,
    image: (v) => `${registry.host}/memcached-bundle:v${v}`,
    requires,
    env: { ...env, HOME: dir },
    async stop() {
      await registry.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RunEnv {
  cluster: TestCluster;
  model: OlmModel;
  client: KubeClient;
  /** Options every domain call needs (kubeconfig, quiet env, fast retries). */
  base: {
    kubeconfig: string;
    env: NodeJS.ProcessEnv;
    retry: { baseDelayMs: number; maxDelayMs: number };
  };
  reporter: MemoryReporter;
  stop(): Promise<void>;
}

/** A cluster with OLM's CRDs and the OLM model (no OLM deployments needed), namespace "demo". */
export async function startRunEnv(
  options: {
    cluster?: TestClusterOptions;
    model?: Partial<OlmModelOptions>;
    registryEnv?: Record<string, string>;
    namespace?: string | false;
  } = {},
): Promise<RunEnv> {
  const cluster = await startTestCluster({
    workloads: { podStartMs: 5, jobDurationMs: 10, imagePullFailMs: 10, imagePullBackOffMs: 20 },
    ...options.cluster,
  });
  const client = await KubeClient.connect({
    kubeconfig: cluster.kubeconfigPath,
    env: {},
    retry: { attempts: 8, baseDelayMs: 20, maxDelayMs: 200 },
  });
  const crds = parseAllDocuments(await readFile(OLM_CRDS, "utf8"))
    .map((d) => d.toJS() as KubeObject)
    .filter((o) => o?.kind);
  const reporter = new MemoryReporter();
  await applyAll(client, crds, { reporter: new MemoryReporter(), timeoutMs: 10_000 });
  if (options.namespace !== false) {
    await client.create({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: options.namespace ?? "demo" },
    });
  }
  const model = await startOlmModel({
    kubeconfigPath: cluster.kubeconfigPath,
    requireOlmDeployments: false,
    onError: process.env.TSOP_MODEL_DEBUG ? (error) => console.error("olm model:", error) : undefined,
    ...options.model,
  });
  return {
    cluster,
    model,
    client,
    reporter,
    base: {
      kubeconfig: cluster.kubeconfigPath,
      env: { ...options.registryEnv },
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
    },
    async stop() {
      await model.stop();
      client.close();
      await cluster.stop();
    },
  };
}

/** Names of the objects of a kind in a namespace ("" = all), sorted. */
export async function names(
  client: KubeClient,
  apiVersion: string,
  kind: string,
  namespace = "",
): Promise<string[]> {
  try {
    return (await client.list(apiVersion, kind, { namespace })).items
      .map((o) => o.metadata.name ?? "")
      .sort();
  } catch {
    return [];
  }
}

/** Every object tsop labelled for a package, as "Kind/name". */
export async function tsopObjects(client: KubeClient, namespace: string): Promise<string[]> {
  const out: string[] = [];
  const kinds: Array<[string, string]> = [
    ["v1", "ConfigMap"],
    ["v1", "Pod"],
    ["v1", "Service"],
    ["operators.coreos.com/v1alpha1", "CatalogSource"],
    ["operators.coreos.com/v1alpha1", "Subscription"],
    ["operators.coreos.com/v1", "OperatorGroup"],
  ];
  for (const [apiVersion, kind] of kinds) {
    const items = (
      await client.list(apiVersion, kind, { namespace, labelSelector: "app.kubernetes.io/managed-by=tsop" })
    ).items;
    out.push(...items.map((o) => `${kind}/${o.metadata.name}`));
  }
  return out.sort();
}

/** runBundle options for the "demo" namespace of an environment, reporting to its reporter. */
export function runOptions(
  env: RunEnv,
  image: string,
  extra: Partial<RunBundleOptions> = {},
): RunBundleOptions {
  return { ...env.base, image, namespace: "demo", timeoutMs: 30_000, reporter: env.reporter, ...extra };
}

/** The error a promise is expected to fail with (the test fails if it succeeds). */
export async function failure(promise: Promise<unknown>): Promise<TsopError> {
  try {
    await promise;
  } catch (error) {
    return error as TsopError;
  }
  throw new Error("expected a failure");
}
