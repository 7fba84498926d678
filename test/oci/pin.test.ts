// --use-image-digests (pinBundleImages) on a bundle fixture against the real registry: every image
// field pinned to the digest skopeo reports, only image fields changed, relatedImages rebuilt as
// documented, all-or-nothing failures that list every image and why, and the digest lock file.
import { cp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { AggregateTsopError } from "../../src/common/errors.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { type PinOptions, pinBundleImages } from "../../src/oci/pin.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../support/registry.js";
import { readTree, testdir } from "../support/testdir.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/bundle", import.meta.url));
const CSV_FILE = "manifests/memcached-operator.clusterserviceversion.yaml";
const IMAGES = [
  "example/memcached-operator:v0.0.1",
  "example/migrate:v1",
  "cache/memcached:1.6",
  "tools/backup:latest",
  "brancz/kube-rbac-proxy:v0.18.0",
  "tools/exporter:2.0",
];

type Obj = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests walk parsed YAML freely
type Json = any;

/** A copy of the fixture bundle with REGISTRY replaced by the test registry's host. */
async function bundleDir(host: string): Promise<string> {
  const dir = await testdir();
  await cp(FIXTURE, dir, { recursive: true });
  for (const name of await readdir(join(dir, "manifests"))) {
    const path = join(dir, "manifests", name);
    await writeFile(path, (await readFile(path, "utf8")).replaceAll("REGISTRY", host));
  }
  return dir;
}

/** What the bundle command does around pinBundleImages: read manifests, pin, write back only on success. */
async function pinDir(dir: string, options: Omit<PinOptions, "reporter">, reporter = new MemoryReporter()) {
  const names = (await readdir(join(dir, "manifests"))).sort();
  const objects = await Promise.all(
    names.map(async (n) => parse(await readFile(join(dir, "manifests", n), "utf8")) as Obj),
  );
  const result = await pinBundleImages(objects, { ...options, reporter });
  for (const [i, name] of names.entries()) {
    await writeFile(join(dir, "manifests", name), stringify(result.objects[i]));
  }
  return result;
}

const csvOf = async (dir: string) => parse(await readFile(join(dir, CSV_FILE), "utf8")) as Json;

describe.each(["token", "htpasswd"] as const)("pinning against a %s registry", (auth) => {
  let registry: TestRegistry;
  const digests: Record<string, string> = {};
  let authFile: string;
  let authDir: string;

  beforeAll(async () => {
    registry = await startRegistry({ auth });
    for (const [i, image] of IMAGES.entries()) {
      const [repo = "", tag = ""] = image.split(":");
      digests[image] = await pushTestImage(registry, repo, tag, {
        layers: [[{ path: "f", content: image }]],
        salt: String(i),
      });
    }
    authDir = await testdir({}, { keep: true });
    authFile = join(authDir, "auth.json");
    await writeFile(
      authFile,
      JSON.stringify({
        auths: { [registry.host]: { auth: Buffer.from("tester:s3cret-pass").toString("base64") } },
      }),
    );
  });
  afterAll(async () => {
    await registry?.stop();
    await rm(authDir, { recursive: true, force: true });
  });

  it("pins containers, init containers, RELATED_IMAGE env, containerImage and relatedImages", async () => {
    const dir = await bundleDir(registry.host);
    const h = registry.host;
    const d = (image: string) => digests[image]!;
    const reporter = new MemoryReporter();
    const tokensBefore = registry.issuer?.requests.length ?? 0;
    const result = await pinDir(dir, { registryConfig: authFile, env: { HOME: dir } }, reporter);
    const csv = await csvOf(dir);
    const pod = csv.spec.install.spec.deployments[0].spec.template.spec;
    expect(pod.containers[0].image).toBe(`${h}/example/memcached-operator@${d(IMAGES[0]!)}`);
    expect(pod.initContainers[0].image).toBe(`${h}/example/migrate@${d("example/migrate:v1")}`);
    expect(pod.containers[0].env[0]).toEqual({
      name: "RELATED_IMAGE_MEMCACHED",
      value: `${h}/cache/memcached@${d("cache/memcached:1.6")}`,
    });
    expect(pod.containers[0].env[1].value).toBe(`${h}/tools/backup@${d("tools/backup:latest")}`);
    expect(pod.containers[1].image).toBe(
      `${h}/brancz/kube-rbac-proxy@${d("brancz/kube-rbac-proxy:v0.18.0")}`,
    );
    expect(csv.metadata.annotations.containerImage).toBe(pod.containers[0].image);
    expect(csv.spec.relatedImages).toEqual([
      { name: "backup-tool", image: `${h}/tools/backup@${d("tools/backup:latest")}` },
      {
        name: "kube-rbac-proxy",
        image: `${h}/brancz/kube-rbac-proxy@${d("brancz/kube-rbac-proxy:v0.18.0")}`,
      },
      { name: "manager", image: `${h}/example/memcached-operator@${d(IMAGES[0]!)}` },
      { name: "memcached", image: `${h}/cache/memcached@${d("cache/memcached:1.6")}` },
      { name: "metrics-exporter", image: `${h}/tools/exporter@${d("tools/exporter:2.0")}` },
      { name: "migrate", image: `${h}/example/migrate@${d("example/migrate:v1")}` },
    ]);
    // Only image fields change: args, alm-examples, valueFrom env and other manifests keep their text.
    expect(pod.containers[0].args).toEqual(["--leader-elect", `--memcached-image=${h}/cache/memcached:1.6`]);
    expect(pod.initContainers[0].args).toEqual([`--sidecar-image=${h}/cache/memcached:1.6`]);
    expect(csv.metadata.annotations["alm-examples"]).toContain(`${h}/cache/memcached:1.6`);
    expect(pod.containers[0].env[2].valueFrom.fieldRef.fieldPath).toBe(
      "metadata.annotations['olm.targetNamespaces']",
    );
    expect(
      await readFile(join(dir, "manifests/memcached-operator-config_v1_configmap.yaml"), "utf8"),
    ).toContain(`${h}/cache/memcached:1.6`);
    expect(result.pinned).toHaveLength(6);
    expect(result.resolved).toBe(6);
    if (auth === "token") {
      // Each distinct reference resolved once: one token per repository, no repeats.
      const scopes = registry.issuer!.requests.slice(tokensBefore).flatMap((r) => r.scopes);
      expect(scopes.sort()).toEqual(IMAGES.map((i) => `repository:${i.split(":")[0]}:pull`).sort());
    }
  });

  it("fails with every missing image and wrong credentials listed, leaving the bundle untouched", async () => {
    const dir = await bundleDir(registry.host);
    const csvPath = join(dir, CSV_FILE);
    await writeFile(
      csvPath,
      (await readFile(csvPath, "utf8"))
        .replace("example/migrate:v1", "example/migrate:v9-missing")
        .replace("tools/exporter:2.0", "tools/absent:1"),
    );
    const before = await readTree(dir);
    const error = await pinDir(dir, { registryConfig: authFile, env: { HOME: dir } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AggregateTsopError);
    const message = (error as Error).message;
    expect(message).toContain("nothing was written");
    expect(message).toContain(`${registry.host}/example/migrate:v9-missing: not found`);
    expect(message).toContain(`${registry.host}/tools/absent:1: not found`);
    expect(message).toContain("init container migrate");
    expect((error as AggregateTsopError).problems).toHaveLength(2);
    expect(await readTree(dir)).toEqual(before);

    const wrong = join(dir, "..", `wrong-${auth}.json`);
    await writeFile(
      wrong,
      JSON.stringify({
        auths: { [registry.host]: { auth: Buffer.from("tester:bad-password-9").toString("base64") } },
      }),
    );
    const authError = await pinDir(dir, { registryConfig: wrong, env: { HOME: dir } }).catch(
      (e: unknown) => e,
    );
    const text = (authError as Error).message;
    expect(text).toContain("authentication failed");
    expect(text).toContain(`the credentials from ${wrong} were rejected`);
    expect(text).not.toContain("bad-password-9");
    // Every distinct image is listed, not just the first.
    expect((authError as AggregateTsopError).problems.length).toBe(6);
    expect(await readTree(dir)).toEqual(before);
  });
});

describe("digest lock file", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
    for (const [i, image] of IMAGES.entries()) {
      const [repo = "", tag = ""] = image.split(":");
      await pushTestImage(registry, repo, tag, {
        layers: [[{ path: "f", content: image }]],
        salt: String(i),
      });
    }
  });
  afterAll(() => registry?.stop());

  it("is written sorted, reused offline, edited by hand for unpushed images, and refreshed", async () => {
    const dir = await bundleDir(registry.host);
    const lockFile = join(dir, "images.lock");
    const first = await pinDir(await bundleDir(registry.host), { lockFile, env: { HOME: dir } });
    expect(first.lockWritten).toBe(true);
    const lockText = await readFile(lockFile, "utf8");
    const keys = Object.keys((parse(lockText) as { images: Obj }).images);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toContain(`${registry.host}/tools/backup:latest`);

    // Offline: the registry is gone, everything comes from the lock, output identical.
    const host = registry.host;
    await registry.stop();
    const offlineDir = await bundleDir(host);
    const offline = await pinDir(offlineDir, { lockFile, env: { HOME: dir } });
    expect(offline.fromLock).toBe(6);
    expect(offline.resolved).toBe(0);
    expect(offline.lockWritten).toBe(false);
    expect(offline.objects).toEqual(first.objects);

    // An image not pushed yet: its digest is added by hand and used.
    const unpushed = `sha256:${"b".repeat(64)}`;
    await writeFile(lockFile, lockText.replace(/\n$/, `\n  ${host}/example/next:v2: ${unpushed}\n`));
    const nextDir = await bundleDir(host);
    const csvPath = join(nextDir, CSV_FILE);
    await writeFile(
      csvPath,
      (await readFile(csvPath, "utf8")).replaceAll("example/migrate:v1", "example/next:v2"),
    );
    const handPinned = await pinDir(nextDir, { lockFile, env: { HOME: dir } });
    expect(handPinned.pinned).toContainEqual({
      from: `${host}/example/next:v2`,
      to: `${host}/example/next@${unpushed}`,
    });

    // --refresh goes back to the registry (which is down): it fails and says why.
    const refreshed = await pinDir(await bundleDir(host), {
      lockFile,
      refresh: true,
      retries: 0,
      env: { HOME: dir },
    }).catch((e: unknown) => e);
    expect((refreshed as Error).message).toContain("connection refused");
  });

  it("names the file and the entry when the lock file is broken", async () => {
    const dir = await bundleDir(registry.host);
    const lockFile = join(dir, "images.lock");
    await writeFile(lockFile, "images:\n  nginx:1: not-a-digest\n");
    await expect(pinDir(dir, { lockFile, env: { HOME: dir } })).rejects.toThrow(
      `digest lock file ${lockFile}: the digest of "nginx:1" is invalid`,
    );
  });
});

describe("pinBundleImages without a registry", () => {
  const D = `sha256:${"c".repeat(64)}`;
  const csv = (extra: Obj = {}): Obj => ({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: { name: "x.v1" },
    spec: {
      install: {
        spec: {
          deployments: [
            {
              name: "ctrl",
              spec: { template: { spec: { containers: [{ name: "manager", image: `quay.io/x/op@${D}` }] } } },
            },
          ],
        },
      },
      ...extra,
    },
  });

  it("keeps already pinned images, pins pod specs in other manifests, and needs no network for them", async () => {
    const dir = await testdir();
    const lockFile = join(dir, "images.lock");
    await writeFile(lockFile, `images:\n  quay.io/x/job:v1: ${D}\n`);
    const job = {
      kind: "CronJob",
      metadata: { name: "cleanup" },
      spec: {
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: "c", image: "quay.io/x/job:v1" }] } } },
        },
      },
    };
    const result = await pinBundleImages([csv(), job], { lockFile, reporter: new MemoryReporter() });
    const pinnedJob = result.objects[1] as Json;
    expect(pinnedJob.spec.jobTemplate.spec.template.spec.containers[0].image).toBe(`quay.io/x/job@${D}`);
    expect((result.objects[0] as Json).spec.relatedImages).toEqual([
      { name: "manager", image: `quay.io/x/op@${D}` },
    ]);
    expect((job.spec.jobTemplate.spec.template.spec.containers[0] as Obj).image).toBe("quay.io/x/job:v1");
  });

  it("lists every unpinnable site: valueFrom related images, invalid references, image-less containers", async () => {
    const bad = csv();
    const pod = (bad as Json).spec.install.spec.deployments[0].spec.template.spec;
    pod.containers.push({ name: "noimage" });
    pod.containers[0].env = [
      { name: "RELATED_IMAGE_DB", valueFrom: { configMapKeyRef: { name: "x", key: "y" } } },
      { name: "RELATED_IMAGE_CACHE", value: "Quay.io/Bad/Name" },
    ];
    const error = await pinBundleImages([bad], { reporter: new MemoryReporter() }).catch((e: unknown) => e);
    const problems = (error as AggregateTsopError).problems;
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toContain('env RELATED_IMAGE_DB: "valueFrom" cannot be pinned');
    expect(problems.join("\n")).toContain("container noimage: the container has no image");
    expect(problems.join("\n")).toContain(
      'invalid image reference "Quay.io/Bad/Name": the repository name must be lowercase',
    );
  });

  it("treats spellings of one reference as one image, keeping each spelling when pinned", async () => {
    const dir = await testdir();
    const lockFile = join(dir, "images.lock");
    await writeFile(lockFile, `images:\n  docker.io/library/nginx:latest: ${D}\n`);
    const spelled = csv();
    const pod = (spelled as Json).spec.install.spec.deployments[0].spec.template.spec;
    pod.containers.push(
      { name: "a", image: "nginx" },
      { name: "b", image: "docker.io/library/nginx:latest" },
    );
    pod.initContainers = [{ name: "c", image: "index.docker.io/library/nginx" }];
    const result = await pinBundleImages([spelled], { lockFile, reporter: new MemoryReporter() });
    const out = (result.objects[0] as Json).spec.install.spec.deployments[0].spec.template.spec;
    expect(out.containers.map((c: { image: string }) => c.image)).toEqual([
      `quay.io/x/op@${D}`,
      `nginx@${D}`,
      `docker.io/library/nginx@${D}`,
    ]);
    expect(out.initContainers[0].image).toBe(`index.docker.io/library/nginx@${D}`);
    expect(result.fromLock).toBe(1);
    // One image, one relatedImages entry, named after the first container that uses it.
    expect((result.objects[0] as Json).spec.relatedImages).toEqual([
      { name: "a", image: `nginx@${D}` },
      { name: "manager", image: `quay.io/x/op@${D}` },
    ]);
  });

  it("refuses bundles without exactly one CSV", async () => {
    await expect(pinBundleImages([], { reporter: new MemoryReporter() })).rejects.toThrow(
      "no ClusterServiceVersion",
    );
    await expect(pinBundleImages([csv(), csv()], { reporter: new MemoryReporter() })).rejects.toThrow(
      "has 2 ClusterServiceVersions",
    );
  });

  it("names relatedImages deterministically when names collide", async () => {
    const two = csv();
    const deployments = (two as Json).spec.install.spec.deployments;
    deployments.push({
      name: "other",
      spec: { template: { spec: { containers: [{ name: "manager", image: `quay.io/x/other@${D}` }] } } },
    });
    (two as Json).spec.relatedImages = [{ name: "", image: `quay.io/x/op@${D}` }];
    const result = await pinBundleImages([two], { reporter: new MemoryReporter() });
    expect((result.objects[0] as Json).spec.relatedImages).toEqual([
      { name: "ctrl", image: `quay.io/x/op@${D}` },
      { name: "other", image: `quay.io/x/other@${D}` },
    ]);
  });
});
