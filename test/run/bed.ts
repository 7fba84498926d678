// Helpers for the real-tier run-bundle tests: bundles built from fixtures/run with an edited CSV and
// pushed by the built CLI to a real registry on 127.0.0.1, and a snapshot of every object in the
// cluster taken with kubectl (an oracle independent of tsop's client).
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { parse, stringify } from "yaml";
import type { KubeObject } from "../../src/kube/objects.js";
import { runTsop } from "../support/cli.js";
import type { TestRegistry } from "../support/registry.js";
import { fixtureDir } from "./fixtures.js";

const CSV_FILE = "manifests/memcached-operator.clusterserviceversion.yaml";

/** fixtures/run/memcached-<version> with `edit` applied to its CSV, pushed as <registry>/<name>:v<version>. */
export async function pushBundle(
  registry: TestRegistry,
  name: string,
  version: "0.0.1" | "0.0.2",
  edit: (csv: KubeObject) => void = () => undefined,
  pushArgs: string[] = ["--plain-http"],
  env: Record<string, string> = {},
): Promise<string> {
  // A plain temp dir (not testdir()): the benchmark pushes bundles outside vitest too.
  const dir = await mkdtemp(join(tmpdir(), "tsop-bed-bundle-"));
  await cp(fixtureDir(version), dir, { recursive: true });
  const csv = parse(await readFile(join(dir, CSV_FILE), "utf8")) as KubeObject;
  edit(csv);
  await writeFile(join(dir, CSV_FILE), stringify(csv));
  const image = `${registry.host}/${name}:v${version}`;
  const pushed = await runTsop(["bundle", "push", image, "--dir", dir, ...pushArgs], { env });
  await rm(dir, { recursive: true, force: true });
  if (pushed.exitCode !== 0) throw new Error(`tsop bundle push ${image} failed:\n${pushed.stderr}`);
  return image;
}

/** The CSV without the API it requires (nothing in the cluster provides certificates.cert.example.com). */
export function withoutRequiredApis(csv: KubeObject): void {
  delete (csv.spec!.customresourcedefinitions as Record<string, unknown>).required;
}

/** Kinds whose objects come and go on their own (heartbeats, event records). */
const TRANSIENT = new Set(["Event", "Lease"]);

/** The kubectl the snapshot runs (a test of the snapshot itself swaps in a wrapper). */
const kubectlBin = (): string => process.env.KUBECTL ?? "kubectl";

/** Every object of every listable kind, as "Kind namespace/name" (kubectl, not tsop's client). */
export async function snapshot(kubeconfig: string): Promise<Set<string>> {
  const env = { KUBECONFIG: kubeconfig };
  let kinds = await listableKinds(env);
  for (;;) {
    const { items, error } = await getObjects(env, kinds);
    if (items) {
      return new Set(
        items
          .filter((o) => !TRANSIENT.has(o.kind))
          .map(
            (o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`,
          ),
      );
    }
    // A kind can vanish between discovery and the get (OLM's CRDs while OLM is uninstalled), and
    // one missing kind fails kubectl's whole multi-kind get: get again the kinds discovery still
    // lists. The list only shrinks; a failure while no kind has gone is a real one.
    const listed = new Set(await listableKinds(env));
    const remaining = kinds.filter((kind) => listed.has(kind));
    if (remaining.length === kinds.length)
      throw new Error(`kubectl get failed while every kind is still served: ${error}`);
    kinds = remaining;
  }
}

/** Resource names ("deployments.apps") that discovery lists with the list verb, now. */
async function listableKinds(env: Record<string, string>): Promise<string[]> {
  const { stdout } = await execa(kubectlBin(), ["api-resources", "--verbs=list", "-o", "name"], { env });
  return stdout.split("\n").filter(Boolean);
}

/** Every object of the given kinds, or kubectl's error when it could not get them all. */
async function getObjects(
  env: Record<string, string>,
  kinds: string[],
): Promise<{ items?: KubeObject[]; error?: string }> {
  const got = await execa(kubectlBin(), ["get", kinds.join(","), "-A", "-o", "json", "--ignore-not-found"], {
    env,
    maxBuffer: 256 * 1024 * 1024,
    reject: false,
  });
  if (got.exitCode !== 0) return { error: got.stderr };
  // --ignore-not-found prints nothing at all for a single kind without objects.
  if (got.stdout.trim() === "") return { items: [] };
  return { items: (JSON.parse(got.stdout) as { items: KubeObject[] }).items };
}

/** Objects in `after` that were not in `before`. */
export function added(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((o) => !before.has(o)).sort();
}

/** Polls until every object added since `before` is gone (OLM and the GC finish asynchronously). */
export async function leftovers(kubeconfig: string, before: Set<string>, waitMs = 90_000): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = added(before, await snapshot(kubeconfig));
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((r) => setTimeout(r, 2000));
  }
}
