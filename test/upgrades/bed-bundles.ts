// The memcached bundles of the upgrade tests on the bed: fixtures/run's bundle directories with the
// version, replaces and CRD edited, and the manager replaced by a stand-in operator (a few lines of
// Node.js on the test's Node base image, run by the bed's pod runner as a real process with the
// CSV's RBAC): every 500 ms it marks each Memcached of its namespace Available (reason Reconciled,
// message naming its version, status.observedGeneration) unless that is already so. It sets the
// condition again when tsop test upgrades resets it (the version rides in the container's args), so the real test sees a real reconcile.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { KubeObject } from "../../src/kube/objects.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { fixtureDir } from "../run/fixtures.js";
import { runTsop } from "../support/cli.js";
import type { TestRegistry } from "../support/registry.js";

const CSV_FILE = "manifests/memcached-operator.clusterserviceversion.yaml";
const CRD_FILE = "manifests/cache.example.com_memcacheds.yaml";

const STAND_IN = `
const fs = require("fs"), https = require("https");
const dir = "/var/run/secrets/kubernetes.io/serviceaccount";
const ns = fs.readFileSync(dir + "/namespace", "utf8").trim();
const ca = fs.readFileSync(dir + "/ca.crt");
const version = process.argv[process.argv.length - 1];
const base = "/apis/cache.example.com/v1alpha1/namespaces/" + ns + "/memcacheds";
function call(method, path, body) {
  return new Promise((resolve, reject) => {
    const token = fs.readFileSync(dir + "/token", "utf8").trim();
    const req = https.request({ host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, method, path, ca,
      headers: { Authorization: "Bearer " + token, "Content-Type": "application/merge-patch+json", Accept: "application/json" } }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => (res.statusCode < 300 ? resolve(JSON.parse(data)) : reject(new Error(method + " " + path + ": " + res.statusCode + " " + data))));
    });
    req.on("error", reject);
    if (body) req.write(JSON.stringify(body));
    req.end();
  });
}
async function tick() {
  for (const m of (await call("GET", base)).items) {
    const s = m.status || {};
    const c = (s.conditions || []).find((x) => x.type === "Available");
    if (c && c.status === "True" && c.message === "by " + version && s.observedGeneration === m.metadata.generation) continue;
    const now = new Date().toISOString().replace(/\\.\\d+Z$/, "Z");
    await call("PATCH", base + "/" + m.metadata.name + "/status", { status: { observedGeneration: m.metadata.generation,
      conditions: [{ type: "Available", status: "True", reason: "Reconciled", message: "by " + version, lastTransitionTime: now, observedGeneration: m.metadata.generation }] } });
    console.log("reconciled " + m.metadata.name + " as " + version);
  }
}
(async () => { for (;;) { try { await tick(); } catch (e) { console.error(e.message); } await new Promise((r) => setTimeout(r, 500)); } })();
`;

/** Pushes the Node base the stand-in runs on as <registry>/memcached-stand-in:1 (once per registry). */
export async function pushStandIn(registry: TestRegistry): Promise<string> {
  await pushNodeBase(registry, "memcached-stand-in", "1");
  return `${registry.host}/memcached-stand-in:1`;
}

type Deployment = { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } };

export interface BundleEdit {
  version: string;
  /** The stand-in's image (pushStandIn). */
  image: string;
  replaces?: string;
  /** Edits the CRD (the fixture's memcacheds.cache.example.com, v1alpha1 with spec.size). */
  crd?: (crd: KubeObject) => void;
}

/** fixtures/run/memcached-0.0.1 as `version`, running the stand-in, pushed as <registry>/<repo>:v<version>. */
export async function pushMemcachedBundle(
  registry: TestRegistry,
  repository: string,
  edit: BundleEdit,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-upgrades-bundle-"));
  try {
    await cp(fixtureDir("0.0.1"), dir, { recursive: true });
    const csv = parse(await readFile(join(dir, CSV_FILE), "utf8")) as KubeObject;
    const image = edit.image;
    csv.metadata.name = `memcached-operator.v${edit.version}`;
    csv.spec!.version = edit.version;
    if (edit.replaces) csv.spec!.replaces = edit.replaces;
    delete (csv.spec!.customresourcedefinitions as Record<string, unknown>).required;
    csv.spec!.relatedImages = [{ name: "manager", image }];
    const deployment = (csv.spec!.install.spec.deployments as Deployment[])[0]!;
    // The version in the arguments: the pod changes on every upgrade, as a new image would change it.
    deployment.spec.template.spec.containers[0] = {
      name: "manager",
      image,
      args: ["-e", STAND_IN, `v${edit.version}`],
    };
    await writeFile(join(dir, CSV_FILE), stringify(csv));
    if (edit.crd) {
      const crd = parse(await readFile(join(dir, CRD_FILE), "utf8")) as KubeObject;
      edit.crd(crd);
      await writeFile(join(dir, CRD_FILE), stringify(crd));
    }
    const bundle = `${registry.host}/${repository}:v${edit.version}`;
    const pushed = await runTsop(["bundle", "push", bundle, "--dir", dir, "--plain-http"]);
    if (pushed.exitCode !== 0) throw new Error(`tsop bundle push ${bundle} failed:\n${pushed.stderr}`);
    return bundle;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A basic catalog template: one channel `alpha` chaining `images` by replaces, in order. */
export function basicTemplate(entries: Array<{ version: string; image: string }>): string {
  const name = (v: string) => `memcached-operator.v${v}`;
  return stringify({
    schema: "olm.template.basic",
    entries: [
      { schema: "olm.package", name: "memcached-operator", defaultChannel: "alpha" },
      {
        schema: "olm.channel",
        package: "memcached-operator",
        name: "alpha",
        entries: entries.map((e, i) => ({
          name: name(e.version),
          ...(i > 0 ? { replaces: name(entries[i - 1]!.version) } : {}),
        })),
      },
      ...entries.map((e) => ({ schema: "olm.bundle", image: e.image })),
    ],
  });
}
