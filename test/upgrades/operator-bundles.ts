// The memcached operator of the upgrade tests on the bed, built as a user builds it: `tsop init` +
// `tsop create api` (the scaffolded reconciler, unchanged), `tsop image build --push` once on the
// Node base the tests assemble, its operand mirrored to the test registry (docker.io is not
// reachable). Each release is `tsop bundle --use-image-digests --version <v>` + `bundle push` of
// that one image: the versions share it, and an OPERATOR_VERSION env var in the CSV's Deployment
// makes each upgrade roll a new pod, so the operator reconciling after an upgrade is a new process
// of the pod runner, not the old one left running. A release can edit its CRD (and CSV) before the
// push: the broken v0.0.3s of the red cases.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { KubeObject } from "../../src/kube/objects.js";
import { DEFAULT_WORKLOAD_IMAGE } from "../../src/scaffold/api.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { buildImage, edit, pushBase, scaffoldMemcached, tsop } from "../operator/support.js";
import type { TestRegistry } from "../support/registry.js";

const CSV_FILE = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
const OPERAND = `require("http").createServer((q, s) => s.end("memcached stand-in")).listen(Number(process.argv[1]), () => console.log("serving"))`;

export interface MemcachedOperator {
  project: string;
  registry: TestRegistry;
  /** The operator image, digest-pinned. */
  image: string;
}

/** Scaffolds and builds the operator in <work>/memcached-operator and pushes its image (once). */
export async function buildMemcachedOperator(
  work: string,
  registry: TestRegistry,
): Promise<MemcachedOperator> {
  const [, project] = await Promise.all([pushBase(registry), scaffoldMemcached(work)]);
  // The operand: a Node.js server on the port its last argument names (the pod runner rewrites it).
  await pushNodeBase(registry, "mirror/memcached", "1.27", { cmd: ["-e", OPERAND, "8080"] });
  await edit(
    project,
    "config/manager/manager.yaml",
    DEFAULT_WORKLOAD_IMAGE,
    `${registry.host}/mirror/memcached:1.27`,
  );
  return { project, registry, image: await buildImage(project, registry, "0.0.1") };
}

export interface ReleaseEdit {
  version: string;
  /** Pushed as <registry>/<repository>:v<version>. */
  repository: string;
  /** Edits the bundle's CRD (memcacheds.cache.example.com, v1alpha1) and, if it must follow, its CSV. */
  crd?: (crd: KubeObject, csv: KubeObject) => void;
}

type Container = { name: string; env?: Array<{ name: string; value: string }> };
type Deployment = { spec: { template: { spec: { containers: Container[] } } } };

/** One release of the operator as a pushed bundle image; releases are made one at a time (bundle/ is shared). */
export async function pushRelease(operator: MemcachedOperator, release: ReleaseEdit): Promise<string> {
  const { project, registry } = operator;
  const plain = `--plain-http=${registry.host}`;
  await tsop(project, [
    "bundle",
    "--image",
    operator.image,
    "--use-image-digests",
    "--version",
    release.version,
    "--channels",
    "alpha",
    "--yes",
    plain,
  ]);
  const csvPath = join(project, CSV_FILE);
  const csv = parse(await readFile(csvPath, "utf8")) as KubeObject;
  const manager = (csv.spec!.install.spec.deployments as Deployment[])[0]!.spec.template.spec.containers.find(
    (c) => c.name === "manager",
  )!;
  manager.env = [...(manager.env ?? []), { name: "OPERATOR_VERSION", value: release.version }];
  if (release.crd) {
    const manifests = join(project, "bundle/manifests");
    const file = (await readdir(manifests)).find((f) => f.includes("memcacheds"));
    if (!file) throw new Error(`no memcacheds CRD in ${manifests}`);
    const crd = parse(await readFile(join(manifests, file), "utf8")) as KubeObject;
    release.crd(crd, csv);
    await writeFile(join(manifests, file), stringify(crd));
  }
  await writeFile(csvPath, stringify(csv));
  const bundle = `${registry.host}/${release.repository}:v${release.version}`;
  await tsop(project, ["bundle", "push", bundle, plain]);
  return bundle;
}

type CrdVersion = {
  name: string;
  served: boolean;
  storage: boolean;
  schema: {
    openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown>; required?: string[] } } };
  };
};

/** The CRD's versions (the scaffold's has one, v1alpha1). */
export const crdVersions = (crd: KubeObject) => crd.spec!.versions as CrdVersion[];

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
