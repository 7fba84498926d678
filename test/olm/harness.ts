// One test environment for the OLM commands: tsop/testing (workloads mode) + the OLM model +
// a local release server with the fixture manifests + an empty cache directory.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryReporter } from "../../src/common/reporter.js";
import { olmInstall } from "../../src/olm/index.js";
import { startTestCluster, type TestCluster, type TestClusterOptions } from "../../src/testing/index.js";
import { type OlmModel, type OlmModelOptions, startOlmModel } from "../support/olm-model/index.js";
import { type ReleaseServer, startReleaseServer } from "./release-server.js";

export interface OlmEnv {
  cluster: TestCluster;
  model: OlmModel;
  releases: ReleaseServer;
  cacheDir: string;
  /** Options every olm call needs (kubeconfig, base URL, cache, fast retries). */
  base: {
    kubeconfig: string;
    baseUrl: string;
    cacheDir: string;
    env: NodeJS.ProcessEnv;
    retry: { baseDelayMs: number; maxDelayMs: number };
  };
  /** The same as CLI flags. */
  flags: string[];
  stop(): Promise<void>;
}

export async function startOlmEnv(
  options: { installed?: boolean; cluster?: TestClusterOptions; model?: Partial<OlmModelOptions> } = {},
): Promise<OlmEnv> {
  const cluster = await startTestCluster({
    workloads: { podStartMs: 10, jobDurationMs: 20 },
    ...options.cluster,
  });
  const model = await startOlmModel({
    kubeconfigPath: cluster.kubeconfigPath,
    // TSOP_MODEL_DEBUG=1 prints the errors the model survives.
    onError: process.env.TSOP_MODEL_DEBUG ? (error) => console.error("olm model:", error) : undefined,
    ...options.model,
  });
  const releases = await startReleaseServer();
  const cacheDir = await mkdtemp(join(tmpdir(), "tsop-olm-cache-"));
  const base = {
    kubeconfig: cluster.kubeconfigPath,
    baseUrl: releases.baseUrl,
    cacheDir,
    env: {},
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
  };
  const env: OlmEnv = {
    cluster,
    model,
    releases,
    cacheDir,
    base,
    flags: ["--kubeconfig", cluster.kubeconfigPath, "--base-url", releases.baseUrl, "--cache-dir", cacheDir],
    async stop() {
      await model.stop();
      await cluster.stop();
      await releases.close();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
  if (options.installed) {
    await olmInstall({ ...base, version: "v0.28.0", timeoutMs: 30_000, reporter: new MemoryReporter() });
  }
  return env;
}
