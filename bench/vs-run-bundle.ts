#!/usr/bin/env -S npx tsx
// `run bundle` side by side on the real test bed: `tsop run bundle` against `operator-sdk run bundle`
// (the rig's v1.42.2) with the same bundle image, on the real kube-apiserver with OLM v0.28.0
// (installed by `tsop olm install`), OLM's operators, registry pods and bundle-unpack Jobs run by the
// pod runner (test/support/rig/). Per run and tool: the wall time until the CLI exits after the CSV
// Succeeded ("operator installed"), and the number of API requests it made, counted at the cluster's
// proxy by the client-certificate user each tool is given (bench-tsop, bench-operator-sdk, both in
// system:masters); then the tool's own cleanup. Runs are interleaved, each tool in its own namespace.
//
// What operator-sdk needs here, and why (internal/olm/operator/bundle and registry/fbcindex):
// - it reads the index image's labels from the registry itself (TLS only, no --use-http for that
//   pull), and the default index is quay.io/operator-framework/opm:latest, out of reach offline. So the
//   registry serves TLS (operator-sdk and tsop trust its CA through SSL_CERT_FILE) and holds a small
//   FBC index image <registry>/operator-framework/opm:bench (label
//   operators.operatorframework.io.index.configs.v1=/configs, an empty /configs), given as
//   --index-image. operator-sdk renders it, adds the bundle, and creates a registry pod running that
//   image with `sh -c "opm serve /configs -p 50051"`;
// - the pod runner runs pods whose images it maps to rig binaries; this repository is added to its
//   map (MAPPED_REPOSITORIES) before the bed starts, so the pod runs the rig's opm (v1.47.0) with
//   sh/gzip/cat, exactly what quay.io/operator-framework/opm maps to. The same image is the
//   --decompression-image (the default ubi9 image is unreachable; it needs only sh, cat and gzip).
// BENCH_RUNS (default 3). Needs root and the rig. Run: npm run bench:vs-run-bundle
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { KubeClient } from "../src/kube/client.js";
import type { KubeObject } from "../src/kube/objects.js";
import type { RequestRecord } from "../src/testing/index.js";
import { withoutRequiredApis } from "../test/run/bed.js";
import { fixtureDir } from "../test/run/fixtures.js";
import { TSOP_BIN } from "../test/support/cli.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../test/support/registry.js";
import { MAPPED_REPOSITORIES } from "../test/support/rig/images.js";
import { type OlmBed, startOlmBed } from "../test/support/rig/olm-bed.js";
import { linkRigAssets } from "./rig-assets.js";
import { fail, main, ok, report, rigBinary, stats, timed } from "./side-by-side.js";

const runs = Number(process.env.BENCH_RUNS ?? 3);
const CSV_FILE = "manifests/memcached-operator.clusterserviceversion.yaml";
const INDEX_LABEL = "operators.operatorframework.io.index.configs.v1";
const TOOLS = ["tsop", "operator-sdk"] as const;
type Tool = (typeof TOOLS)[number];

/** fixtures/run/memcached-0.0.1 without its required API, pushed by the built CLI over TLS. */
async function pushBundle(registry: TestRegistry, env: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-bench-bundle-"));
  try {
    await cp(fixtureDir("0.0.1"), dir, { recursive: true });
    const csv = parse(await readFile(join(dir, CSV_FILE), "utf8")) as KubeObject;
    withoutRequiredApis(csv);
    await writeFile(join(dir, CSV_FILE), stringify(csv));
    const image = `${registry.host}/memcached-bundle:v0.0.1`;
    ok(
      "tsop bundle push",
      await timed(process.execPath, [TSOP_BIN, "bundle", "push", image, "--dir", dir], { env }),
    );
    return image;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An empty file-based-catalog index image, the shape operator-sdk checks for (its label). */
async function pushIndexImage(registry: TestRegistry): Promise<string> {
  await pushTestImage(registry, "operator-framework/opm", "bench", {
    layers: [[{ path: "configs", type: "directory" }]],
    labels: { [INDEX_LABEL]: "/configs" },
  });
  return `${registry.host}/operator-framework/opm:bench`;
}

/** Requests per user, recorded as they pass (the proxy's own list keeps only the last 5000). */
function recordRequests(bed: OlmBed): Map<string, string[]> {
  const byUser = new Map<string, string[]>();
  const records = bed.cluster.requests;
  const push = records.push.bind(records);
  records.push = (...items: RequestRecord[]) => {
    for (const r of items) {
      const list = byUser.get(r.user) ?? [];
      list.push(`${r.method} ${r.path}`);
      byUser.set(r.user, list);
    }
    return push(...items);
  };
  return byUser;
}

/** "GET configmaps ×3, WATCH subscriptions ×1, …": verb and resource, names and queries aside. */
function summarise(requests: string[]): string {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const [method, target] = r.split(" ") as [string, string];
    const url = new URL(target, "https://x");
    const verb = url.searchParams.get("watch") === "true" ? "WATCH" : method;
    const parts = url.pathname.split("/").filter(Boolean);
    const at = parts.indexOf("namespaces");
    const rest =
      at >= 0 && parts.length > at + 2 ? parts.slice(at + 2) : parts.slice(parts[0] === "api" ? 2 : 3);
    const key = `${verb} ${rest.filter((_, i) => i % 2 === 0).join("/") || url.pathname}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(", ");
}

/**
 * The CatalogSource's connection states as OLM reports them during a run ("READY@2.1s"), sampled
 * every 500 ms with an admin client (not counted): shows where a slow "catalog" phase went.
 */
function trackCatalogStates(client: KubeClient, namespace: string): () => string {
  const started = Date.now();
  const seen: string[] = [];
  let last = "";
  let stopped = false;
  const sample = async () => {
    while (!stopped) {
      const list = await client
        .list("operators.coreos.com/v1alpha1", "CatalogSource", { namespace })
        .catch(() => undefined);
      const state = list?.items
        .map(
          (cs) =>
            (cs.status as { connectionState?: { lastObservedState?: string } } | undefined)?.connectionState
              ?.lastObservedState ?? "none",
        )
        .join(",");
      if (state && state !== last) seen.push(`${state}@${((Date.now() - started) / 1000).toFixed(1)}s`);
      last = state ?? last;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  void sample();
  return () => {
    stopped = true;
    return seen.join(" → ");
  };
}

interface Setup {
  bed: OlmBed;
  admin: KubeClient;
  bundle: string;
  index: string;
  env: Record<string, string>;
  kubeconfigs: Record<Tool, string>;
  sdk: string;
}

function commands(s: Setup, tool: Tool): { run: [string, string[]]; cleanup: [string, string[]] } {
  const ns = `bench-${tool}`;
  const common = ["-n", ns, "--kubeconfig", s.kubeconfigs[tool], "--timeout", "5m"];
  if (tool === "tsop")
    return {
      run: [process.execPath, [TSOP_BIN, "run", "bundle", s.bundle, ...common, "-o", "json"]],
      cleanup: [process.execPath, [TSOP_BIN, "cleanup", "memcached-operator", ...common, "--delete-crds"]],
    };
  return {
    run: [
      s.sdk,
      ["run", "bundle", s.bundle, ...common, "--index-image", s.index, "--decompression-image", s.index],
    ],
    cleanup: [s.sdk, ["cleanup", "memcached-operator", ...common]],
  };
}

/** One run of `tool`: wall ms and requests to "operator installed", then its cleanup (not timed). */
async function once(
  s: Setup,
  log: Map<string, string[]>,
  tool: Tool,
): Promise<{ ms: number; requests: number }> {
  const user = `bench-${tool}`;
  const { run, cleanup } = commands(s, tool);
  const before = log.get(user)?.length ?? 0;
  const catalogStates = trackCatalogStates(s.admin, `bench-${tool}`);
  const result = ok(`${tool} run bundle`, await timed(run[0], run[1], { env: s.env, timeoutMs: 330_000 }));
  console.log(`  ${tool} CatalogSource states: ${catalogStates()}`);
  const made = (log.get(user) ?? []).slice(before);
  console.log(`  ${tool} requests: ${summarise(made)}`);
  const said = result.stdout + result.stderr;
  if (!/memcached-operator\.v0\.0\.1/.test(said) || !/install|Succeeded/i.test(said))
    fail(`${tool} run bundle exited 0 without reporting the operator installed:\n${said}`);
  if (tool === "tsop") {
    const phases = (JSON.parse(result.stdout) as { phases: Array<{ phase: string; ms: number }> }).phases;
    console.log(`  tsop phases: ${phases.map((p) => `${p.phase} ${p.ms}`).join(", ")}`);
  }
  ok(`${tool} cleanup`, await timed(cleanup[0], cleanup[1], { env: s.env, timeoutMs: 330_000 }));
  return { ms: result.ms, requests: made.length };
}

main(async () => {
  linkRigAssets();
  const sdk = rigBinary("operator-sdk");
  const registry = await startRegistry({ tls: true });
  let bed: OlmBed | undefined;
  let admin: KubeClient | undefined;
  try {
    // Before the bed starts: kwok's stages leave the runner's pods alone by this list.
    MAPPED_REPOSITORIES.push(`${registry.host}/operator-framework/opm`);
    const env = { SSL_CERT_FILE: registry.caFile! };
    const bundle = await pushBundle(registry, env);
    const index = await pushIndexImage(registry);
    const bedStarted = Date.now();
    bed = await startOlmBed({ namespaces: TOOLS.map((t) => `bench-${t}`) });
    const bedMs = Date.now() - bedStarted;
    const log = recordRequests(bed);
    const kubeconfigs = {} as Record<Tool, string>;
    for (const tool of TOOLS) {
      kubeconfigs[tool] = join(bed.cluster.dataDir, `bench-${tool}.kubeconfig`);
      await writeFile(kubeconfigs[tool], bed.cluster.kubeconfigFor(`bench-${tool}`, ["system:masters"]), {
        mode: 0o600,
      });
    }
    admin = await KubeClient.connect({ kubeconfig: bed.cluster.kubeconfigPath, env: {} });
    const setup: Setup = { bed, admin, bundle, index, env, kubeconfigs, sdk };
    const samples: Record<string, number[]> = { tsop: [], "operator-sdk": [] };
    const requests: Record<string, number[]> = { "tsop API requests": [], "operator-sdk API requests": [] };
    for (let i = 0; i < runs; i++) {
      for (const tool of TOOLS) {
        const r = await once(setup, log, tool);
        samples[tool]!.push(r.ms);
        requests[`${tool} API requests`]!.push(r.requests);
        console.log(`run ${i + 1} ${tool}: ${Math.round(r.ms)} ms, ${r.requests} API requests`);
      }
    }
    const ratio = (a: number[], b: number[]) => stats(a.map((v, i) => v / b[i]!));
    report({
      benchmark: "tsop run bundle vs operator-sdk run bundle on the real test bed (to operator installed)",
      runs,
      peers: ["operator-sdk"],
      cases: [{ label: "memcached 0.0.1, OLM v0.28.0", samples, counts: requests }],
      notes: [
        `API requests ratio tsop / operator-sdk: ${Object.values(
          ratio(requests["tsop API requests"]!, requests["operator-sdk API requests"]!),
        )
          .map((r) => `${r.toFixed(2)}x`)
          .join(" / ")}`,
        `bed start-up (control plane + tsop olm install): ${Math.round(bedMs / 1000)} s, not counted`,
        "operator-sdk's index image is a local FBC image run by the pod runner as the rig's opm (see the header of bench/vs-run-bundle.ts)",
      ],
    });
  } finally {
    admin?.close();
    await bed?.stop();
    await registry.stop();
  }
});
