// `tsop test upgrades`: every upgrade edge of a catalog tried on the cluster, one after another.
// Stages: the catalog (an FBC directory, or a template rendered by catalog/) → its graph
// (catalog/graph.ts) → the edges to try (edges.ts) → the samples (samples.ts) → per edge
// edge-run.ts (install `from` through OLM, samples reconciled, upgrade to `to`, checks.ts with
// fields.ts, crd.ts and readiness.ts, cleanup) → report.ts. OLM work is olm/run's (run bundle,
// bundle-upgrade, cleanup); this folder only orders it and judges what it did to the samples.
import { stat } from "../common/fs.js";
import { InvalidInputError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import { type ClusterOptions, connect } from "../kube/connect.js";
import { renderCatalog } from "../catalog/index.js";
import { readCatalogDir } from "../catalog/fbc.js";
import { catalogGraph } from "../catalog/graph.js";
import type { Catalog } from "../catalog/fbc.js";
import { requireOlm } from "../olm/detect.js";
import { type EdgeResult, type EdgeRunOptions, runEdge } from "./edge-run.js";
import { type EdgeFilter, noEdges, upgradeEdges } from "./edges.js";
import type { Readiness } from "./readiness.js";
import { readSamples } from "./samples.js";

export { type EdgeFailure, type EdgeResult, type StepResult } from "./edge-run.js";
export { type EdgeFilter, type UpgradeEdge, upgradeEdges } from "./edges.js";
export {
  conditionReadiness,
  DEFAULT_READY_CONDITIONS,
  parseReadyJsonpath,
  type Readiness,
} from "./readiness.js";
export { failureLine, formatEdgeReport } from "./report.js";

export interface TestUpgradesOptions
  extends ClusterOptions, Omit<EdgeRunOptions, "client" | "reporter" | "namespace" | "samples"> {
  /** An FBC directory, or a catalog template file (rendered first, reading its bundle images). */
  catalog: string;
  /** The samples directory (config/samples, or --fixtures). */
  samplesDir: string;
  filter: EdgeFilter;
  readiness: Readiness;
  reporter: Reporter;
  env?: NodeJS.ProcessEnv;
  caFile?: string;
}

export interface TestUpgradesResult {
  namespace: string;
  catalog: string;
  ok: boolean;
  edges: EdgeResult[];
}

async function loadCatalog(options: TestUpgradesOptions): Promise<Catalog> {
  const found = await stat(options.catalog).catch(() => undefined);
  if (!found)
    throw new InvalidInputError(`catalog ${options.catalog} does not exist`, {
      hint: "Pass the rendered FBC directory (tsop catalog render) or the catalog template (catalog/template.yaml).",
    });
  if (found.isDirectory()) return readCatalogDir(options.catalog);
  return (
    await renderCatalog({
      template: options.catalog,
      reporter: options.reporter,
      env: options.env,
      registryConfig: options.registryConfig,
      skipTlsVerify: options.skipTlsVerify,
      plainHttp: options.plainHttp,
      caFile: options.caFile,
    })
  ).catalog;
}

export async function testUpgrades(options: TestUpgradesOptions): Promise<TestUpgradesResult> {
  // The samples first: a bad one is refused before the catalog's bundle images are read.
  const samples = await readSamples(options.samplesDir);
  const catalog = await loadCatalog(options);
  const graph = catalogGraph(catalog);
  const edges = upgradeEdges(graph, options.filter);
  if (edges.length === 0) throw noEdges(options.filter, upgradeEdges(graph).length);
  const conn = await connect(options);
  try {
    await requireOlm(conn.client);
    const namespace = options.namespace ?? conn.client.namespace;
    options.reporter.info(
      `Testing ${edges.length} upgrade edge(s) in namespace ${namespace} with ${samples.length} sample(s)`,
    );
    const results: EdgeResult[] = [];
    for (const edge of edges)
      results.push(await runEdge(edge, { ...options, client: conn.client, namespace, samples }));
    return { namespace, catalog: options.catalog, ok: results.every((r) => r.ok), edges: results };
  } finally {
    if (conn.owned) conn.client.close();
  }
}
