// The memcached fixture project (fixtures/bundle/memcached/project) in temp copies for the bundle
// benchmarks, and the facts a tsop bundle and an operator-sdk bundle of it must agree on.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { fail } from "./side-by-side.js";

export const BUNDLE_FLAGS = ["--version", "0.0.1", "--channels", "alpha", "--default-channel", "alpha"];
const FIXTURE = join(import.meta.dirname, "../fixtures/bundle/memcached/project");

/**
 * A temp copy of the fixture project; operator-sdk's with the kubebuilder Go layout in PROJECT.
 * tsop's has a node_modules/ like every project tsop is installed in, where the CLI keeps its code
 * cache (src/cli/load-cli.ts; written by each benchmark's warm-up run).
 */
export function copyProject(forOperatorSdk: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), forOperatorSdk ? "tsop-bench-sdk-" : "tsop-bench-tsop-"));
  cpSync(FIXTURE, dir, { recursive: true });
  if (!forOperatorSdk) mkdirSync(join(dir, "node_modules"));
  if (forOperatorSdk) {
    const project = join(dir, "PROJECT");
    writeFileSync(project, readFileSync(project, "utf8").replace("tsop.dev/v1", "go.kubebuilder.io/v4"));
  }
  return dir;
}

interface BundleFacts {
  files: string[];
  csv: string;
  images: string[];
  annotations: Record<string, string>;
}

/** What both bundles must agree on (the operator-sdk-specific annotations aside). */
export function bundleFacts(dir: string): BundleFacts {
  const manifests = join(dir, "bundle/manifests");
  const files = readdirSync(manifests).sort();
  const csvFile = files.find((f) => f.endsWith(".clusterserviceversion.yaml"));
  if (!csvFile) fail(`no CSV in ${manifests}`);
  const csv = parse(readFileSync(join(manifests, csvFile), "utf8")) as {
    metadata: { name: string };
    spec: {
      install: {
        spec: {
          deployments: Array<{ spec: { template: { spec: { containers: Array<{ image: string }> } } } }>;
        };
      };
    };
  };
  const images = csv.spec.install.spec.deployments.flatMap((d) =>
    d.spec.template.spec.containers.map((c) => c.image),
  );
  const all = (
    parse(readFileSync(join(dir, "bundle/metadata/annotations.yaml"), "utf8")) as {
      annotations: Record<string, string>;
    }
  ).annotations;
  const annotations = Object.fromEntries(
    Object.entries(all).filter(([k]) => k.startsWith("operators.operatorframework.io.bundle.")),
  );
  return { files, csv: csv.metadata.name, images: images.sort(), annotations };
}

export function sameBundle(tsopDir: string, sdkDir: string): void {
  const a = JSON.stringify(bundleFacts(tsopDir));
  const b = JSON.stringify(bundleFacts(sdkDir));
  if (a !== b) fail(`tsop and operator-sdk bundles differ:\n  tsop:         ${a}\n  operator-sdk: ${b}`);
}
