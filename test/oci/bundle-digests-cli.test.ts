// `tsop bundle --use-image-digests` end to end: the built CLI on a copy of the memcached fixture
// project (an init container and a RELATED_IMAGE env var added), against a token-auth registry;
// every image ends up at the digest skopeo reports, and failures leave the bundle untouched.
import { existsSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../support/registry.js";
import { readTree, testdir } from "../support/testdir.js";

const PROJECT = join(REPO_ROOT, "fixtures", "bundle", "memcached", "project");
const CSV = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
const IMAGES = ["example/memcached-operator:v0.0.1", "example/migrate:v1", "cache/memcached:1.4.36-alpine"];

describe("tsop bundle --use-image-digests", () => {
  let registry: TestRegistry;
  const digest: Record<string, string> = {};
  beforeAll(async () => {
    registry = await startRegistry({ auth: "token" });
    for (const [i, image] of IMAGES.entries()) {
      const [repo = "", tag = ""] = image.split(":");
      digest[image] = await pushTestImage(registry, repo, tag, {
        layers: [[{ path: "f", content: image }]],
        salt: `${i}`,
      });
    }
  });
  afterAll(() => registry?.stop());

  async function project(password = "s3cret-pass"): Promise<{ dir: string; auth: string }> {
    const dir = await testdir();
    await cp(PROJECT, dir, { recursive: true });
    const manager = join(dir, "config/manager/manager.yaml");
    const h = registry.host;
    await writeFile(
      manager,
      (await readFile(manager, "utf8"))
        .replace(
          "      containers:\n",
          `      initContainers:\n      - name: migrate\n        image: ${h}/example/migrate:v1\n      containers:\n`,
        )
        .replace(
          "        env:\n",
          `        env:\n        - name: RELATED_IMAGE_MEMCACHED\n          value: ${h}/cache/memcached:1.4.36-alpine\n`,
        ),
    );
    const auth = join(dir, "auth.json");
    const encoded = Buffer.from(`tester:${password}`).toString("base64");
    await writeFile(auth, JSON.stringify({ auths: { [h]: { auth: encoded } } }));
    return { dir, auth };
  }

  const bundleArgs = (auth: string, extra: string[] = []) => [
    "bundle",
    "--skip-generate",
    "--version",
    "0.0.1",
    "--image",
    `${registry.host}/example/memcached-operator:v0.0.1`,
    "--use-image-digests",
    "--registry-config",
    auth,
    ...extra,
  ];

  it("pins the manager, the init container and RELATED_IMAGE env to skopeo's digests", async () => {
    const { dir, auth } = await project();
    // Without the flag: the same relatedImages entries (one builder), by tag.
    const plain = await runTsop(
      bundleArgs(auth).filter((a) => a !== "--use-image-digests"),
      {
        cwd: dir,
        env: { HOME: dir, CI: "1" },
      },
    );
    expect(plain.exitCode, plain.stderr).toBe(0);
    const unpinned = parse(await readFile(join(dir, CSV), "utf8")).spec.relatedImages;
    const result = await runTsop(bundleArgs(auth), { cwd: dir, env: { HOME: dir, CI: "1" } });
    expect(result.stderr).not.toContain("error");
    expect(result.exitCode).toBe(0);
    // An image by tag in a variable pinning does not read is pointed out.
    expect(result.stderr).toContain(
      "deployment memcached-operator-controller-manager, container manager, env MEMCACHED_IMAGE: memcached:1.4.36-alpine is an image by tag outside a RELATED_IMAGE_ variable, so it stays unpinned",
    );
    expect(plain.stderr).not.toContain("stays unpinned");
    const csv = parse(await readFile(join(dir, CSV), "utf8"));
    const pod = csv.spec.install.spec.deployments[0].spec.template.spec;
    const h = registry.host;
    const pinned = (image: string) => `${h}/${image.split(":")[0]}@${digest[image]}`;
    expect(pod.containers[0].image).toBe(pinned(IMAGES[0]!));
    expect(pod.initContainers[0].image).toBe(pinned(IMAGES[1]!));
    const env = Object.fromEntries(
      pod.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    expect(env.RELATED_IMAGE_MEMCACHED).toBe(pinned(IMAGES[2]!));
    // A plain env var that is not a RELATED_IMAGE stays as written.
    expect(env.MEMCACHED_IMAGE).toBe("memcached:1.4.36-alpine");
    expect(csv.spec.relatedImages).toEqual([
      { name: "manager", image: pinned(IMAGES[0]!) },
      { name: "memcached", image: pinned(IMAGES[2]!) },
      { name: "migrate", image: pinned(IMAGES[1]!) },
    ]);
    expect(unpinned).toEqual([
      { name: "manager", image: `${h}/${IMAGES[0]}` },
      { name: "memcached", image: `${h}/${IMAGES[2]}` },
      { name: "migrate", image: `${h}/${IMAGES[1]}` },
    ]);
  });

  it("fails on a wrong password and on a missing image, leaving the bundle as it was", async () => {
    const { dir, auth } = await project();
    const first = await runTsop(bundleArgs(auth), { cwd: dir, env: { HOME: dir, CI: "1" } });
    expect(first.exitCode).toBe(0);
    const before = await readTree(join(dir, "bundle"));

    const wrong = join(dir, "wrong.json");
    await writeFile(
      wrong,
      JSON.stringify({
        auths: { [registry.host]: { auth: Buffer.from("tester:Not-It-42").toString("base64") } },
      }),
    );
    const denied = await runTsop(bundleArgs(wrong, ["--version", "0.0.2"]), {
      cwd: dir,
      env: { HOME: dir, CI: "1" },
    });
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toContain("cannot pin the bundle's images");
    expect(denied.stderr).toContain(`authentication failed for ${registry.host}`);
    expect(denied.stderr).not.toContain("Not-It-42");
    expect(await readTree(join(dir, "bundle"))).toEqual(before);

    const missing = await runTsop(
      [
        ...bundleArgs(auth, ["--version", "0.0.2"]),
        "--image",
        `${registry.host}/example/memcached-operator:v9.9.9`,
      ],
      { cwd: dir, env: { HOME: dir, CI: "1" } },
    );
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(`${registry.host}/example/memcached-operator:v9.9.9: not found`);
    // The way out names the flag that takes a lock file, or the lock file given.
    expect(missing.stderr).toContain(
      'add their digests by hand to a lock file ("images: {<reference>: <digest>}") given with --images-lock <file>',
    );
    expect(await readTree(join(dir, "bundle"))).toEqual(before);
    const lock = join(dir, "images.lock");
    const locked = await runTsop(
      [
        ...bundleArgs(auth, ["--version", "0.0.2", "--images-lock", lock]),
        "--image",
        `${registry.host}/example/memcached-operator:v9.9.9`,
      ],
      { cwd: dir, env: { HOME: dir, CI: "1" } },
    );
    expect(locked.exitCode).toBe(1);
    expect(locked.stderr).toContain(`add their digests to ${lock} by hand`);
  });

  it("writes no images.lock when the CSV check after pinning fails (nothing was written)", async () => {
    const { dir, auth } = await project();
    const base = join(dir, "config/manifests/bases/memcached-operator.clusterserviceversion.yaml");
    // Every install mode unsupported: CSV-09, an error of the generated CSV, found after pinning.
    await writeFile(base, (await readFile(base, "utf8")).replaceAll("supported: true", "supported: false"));
    const lock = join(dir, "images.lock");
    const failed = await runTsop(bundleArgs(auth, ["--images-lock", lock]), {
      cwd: dir,
      env: { HOME: dir, CI: "1" },
    });
    expect(failed.exitCode, failed.stderr).toBe(1);
    expect(failed.stderr).toContain("CSV-09");
    expect(failed.stderr).toContain("nothing was written");
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(dir, "bundle"))).toBe(false);
    expect(existsSync(join(dir, "bundle.Dockerfile"))).toBe(false);
  });

  it("reuses --images-lock entries and resolves again with --refresh-digests", async () => {
    const { dir, auth } = await project();
    const lock = join(dir, "images.lock");
    const env = { HOME: dir, CI: "1" };
    const first = await runTsop(bundleArgs(auth, ["--images-lock", lock]), { cwd: dir, env });
    expect(first.exitCode).toBe(0);
    const real = digest[IMAGES[2]!]!;
    const locked = await readFile(lock, "utf8");
    expect(locked).toContain(real);
    // A digest only the lock file knows: reused as is, so the registry was not asked again.
    const fake = `sha256:${"0".repeat(64)}`;
    await writeFile(lock, locked.replace(real, fake));
    const memcached = async () => {
      const csv = parse(await readFile(join(dir, CSV), "utf8"));
      return csv.spec.relatedImages.find((r: { name: string }) => r.name === "memcached").image as string;
    };
    const reused = await runTsop(bundleArgs(auth, ["--images-lock", lock, "--version", "0.0.2"]), {
      cwd: dir,
      env,
    });
    expect(reused.exitCode).toBe(0);
    expect(await memcached()).toBe(`${registry.host}/cache/memcached@${fake}`);
    const refreshed = await runTsop(
      bundleArgs(auth, ["--images-lock", lock, "--version", "0.0.3", "--refresh-digests"]),
      { cwd: dir, env },
    );
    expect(refreshed.exitCode).toBe(0);
    expect(await memcached()).toBe(`${registry.host}/cache/memcached@${real}`);
    expect(await readFile(lock, "utf8")).not.toContain(fake);
  });
});
