// `tsop image build` as a user runs it, in a scaffolded project (init with its npm install, create
// api, npm run build), against a real docker-registry and a Node base the test assembles itself.
// Oracles: skopeo (inspect, copy to a dir), the image's own layers unpacked and its entrypoint run
// with unshare as the image's user in its workdir, and tsop's manifests compared between builds.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractLayer } from "../../src/oci/extract.js";
import { runTsop } from "../support/cli.js";
import { skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { BASE_NODE, pushNodeBase } from "./node-base.js";

let registry: TestRegistry;
let project: string;
let work: string;
const PLAIN = (r: TestRegistry) => `--plain-http=${r.host}`;

async function tsop(args: string[], env: Record<string, string> = {}) {
  return runTsop([...args, PLAIN(registry)], { cwd: project, env, timeoutMs: 300_000 });
}

interface RawManifest {
  layers: Array<{ digest: string; mediaType: string }>;
  config: { digest: string };
}

async function skopeoRaw(reference: string, config = false): Promise<Record<string, unknown>> {
  const { stdout } = await execa("skopeo", [
    "inspect",
    "--tls-verify=false",
    "--raw",
    ...(config ? ["--config"] : []),
    `docker://${registry.host}/${reference}`,
  ]);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** skopeo copies the image to a dir; every layer is unpacked in order by tsop's safe extractor. */
async function unpackImage(reference: string, into: string): Promise<void> {
  const copy = join(into, "copy");
  await mkdir(join(into, "rootfs"), { recursive: true });
  await execa("skopeo", [
    "copy",
    "--quiet",
    "--src-tls-verify=false",
    `docker://${registry.host}/${reference}`,
    `dir:${copy}`,
  ]);
  const manifest = JSON.parse(await readFile(join(copy, "manifest.json"), "utf8")) as RawManifest;
  const state = { entries: 0, bytes: 0 };
  const limits = {
    maxEntries: 100_000,
    maxFileBytes: 512 * 1024 * 1024,
    maxTotalBytes: 2 * 1024 * 1024 * 1024,
  };
  for (const layer of manifest.layers) {
    const blob = await readFile(join(copy, layer.digest.slice("sha256:".length)));
    await extractLayer(blob, "gzip", join(into, "rootfs"), { limits, state, label: layer.digest });
  }
}

beforeAll(async () => {
  registry = await startRegistry();
  await pushNodeBase(registry, "base/node", "20");
  await pushNodeBase(registry, "base/node-multi", "20", { foreignArch: "arm64" });
  work = await mkdtemp(join(tmpdir(), "tsop-image-build-"));
  project = join(work, "memcached-operator");
  const init = await runTsop(["init", project, "--domain", "example.com"], { timeoutMs: 300_000 });
  expect(init.exitCode, init.stderr).toBe(0);
  const api = await runTsop(
    ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"],
    {
      cwd: project,
    },
  );
  expect(api.exitCode, api.stderr).toBe(0);
  await execa("npm", ["run", "build"], { cwd: project });
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("tsop image build", () => {
  let pinned: string;
  let baseDigest: string;

  it(
    "pushes a runnable operator image on the base, resolved and recorded by digest",
    { timeout: 600_000 },
    async () => {
      baseDigest = (await skopeoInspect(registry, "base/node:20")).Digest;
      const built = await tsop([
        "image",
        "build",
        "--base",
        `${registry.host}/base/node:20`,
        "--push",
        `${registry.host}/op:v1`,
        "-q",
      ]);
      expect(built.exitCode, built.stderr).toBe(0);
      pinned = built.stdout.trim();
      expect(pinned).toMatch(new RegExp(`^${registry.host.replace(".", "\\.")}/op@sha256:[0-9a-f]{64}$`));
      const inspected = await skopeoInspect(registry, "op:v1");
      expect(`${registry.host}/op@${inspected.Digest}`).toBe(pinned);

      const config = (await skopeoRaw("op:v1", true)) as { config: Record<string, unknown> };
      expect(config.config.User).toBe("65532:65532");
      expect(config.config.WorkingDir).toBe("/app");
      expect(config.config.Entrypoint).toEqual([BASE_NODE, "--max-semi-space-size=1", "dist/main.js"]);
      expect(config.config.Cmd).toBeUndefined();
      expect(config.config.Env).toContain("NODE_ENV=production");
      const labels = config.config.Labels as Record<string, string>;
      expect(labels["org.opencontainers.image.version"]).toBe("0.0.1");
      expect(labels["org.opencontainers.image.base.digest"]).toBe(baseDigest);
      expect(labels["org.opencontainers.image.base.name"]).toBe(`${registry.host}/base/node`);

      const base = (await skopeoRaw("base/node:20")) as unknown as RawManifest;
      const manifest = (await skopeoRaw("op:v1")) as unknown as RawManifest;
      expect(manifest.layers.length).toBe(base.layers.length + 2);
      expect(manifest.layers.slice(0, base.layers.length)).toEqual(base.layers);

      const root = join(work, "unpacked");
      await unpackImage("op:v1", root);
      const ran = await execa(
        "unshare",
        [
          "--root",
          join(root, "rootfs"),
          "--wd",
          "/app",
          "--setuid",
          "65532",
          "--setgid",
          "65532",
          ...(config.config.Entrypoint as string[]),
          "--help",
        ],
        { reject: false },
      );
      expect(ran.exitCode, ran.stderr).toBe(0);
      expect(ran.stdout).toContain("--metrics-bind-address");
    },
  );

  it(
    "gives the same digest twice, and a changed source file changes only the app layer",
    { timeout: 600_000 },
    async () => {
      const args = [
        "image",
        "build",
        "--base",
        `${registry.host}/base/node:20`,
        "--push",
        `${registry.host}/op:again`,
        "-q",
      ];
      const again = await tsop(args);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe(pinned);
      const before = (await skopeoRaw("op:again")) as unknown as RawManifest;

      const main = join(project, "src", "main.ts");
      await writeFile(main, `${await readFile(main, "utf8")}\n// a change\nconsole.debug("changed");\n`);
      await execa("npm", ["run", "build"], { cwd: project });
      const changed = await tsop([...args.slice(0, -3), "--push", `${registry.host}/op:changed`, "-q"]);
      expect(changed.exitCode, changed.stderr).toBe(0);
      expect(changed.stdout.trim()).not.toBe(pinned);
      const after = (await skopeoRaw("op:changed")) as unknown as RawManifest;
      expect(after.layers.length).toBe(before.layers.length);
      expect(after.layers.slice(0, -1)).toEqual(before.layers.slice(0, -1));
      expect(after.layers.at(-1)?.digest).not.toBe(before.layers.at(-1)?.digest);
    },
  );

  it(
    "reuses the cached dependencies layer: npm runs again only when its inputs change or --no-cache",
    { timeout: 600_000 },
    async () => {
      // A PATH with git (the revision label) but no npm: a build that needs npm fails.
      const withoutNpm = join(work, "bin-without-npm");
      await mkdir(withoutNpm, { recursive: true });
      await symlink((await execa("sh", ["-c", "command -v git"])).stdout.trim(), join(withoutNpm, "git"));
      const args = [
        "image",
        "build",
        "--base",
        `${registry.host}/base/node:20`,
        "--push",
        `${registry.host}/op:cached`,
        "-q",
      ];
      const first = await tsop(args);
      expect(first.exitCode, first.stderr).toBe(0);

      const cached = await tsop(args, { PATH: withoutNpm });
      expect(cached.exitCode, cached.stderr).toBe(0);
      expect(cached.stdout.trim()).toBe(first.stdout.trim());

      const uncached = await tsop([...args, "--no-cache"], { PATH: withoutNpm });
      expect(uncached.exitCode).toBe(1);
      expect(uncached.stderr).toContain("installing the production dependencies");

      // A damaged cached layer is rebuilt, never shipped.
      const cacheDir = join(project, "node_modules", ".cache", "tsop-image");
      const blob = (await readdir(cacheDir)).find((name) => name.endsWith(".tar.gz"))!;
      await writeFile(join(cacheDir, blob), "damaged");
      expect((await tsop(args, { PATH: withoutNpm })).exitCode).toBe(1);
      const rebuilt = await tsop(args);
      expect(rebuilt.stdout.trim()).toBe(first.stdout.trim());

      // An input of npm ci changed (package.json): the cache no longer applies.
      const pkgFile = join(project, "package.json");
      const pkg = await readFile(pkgFile, "utf8");
      await writeFile(pkgFile, pkg.replace(/\n}\s*$/, ',\n  "description": "changed"\n}\n'));
      try {
        expect((await tsop(args, { PATH: withoutNpm })).exitCode).toBe(1);
      } finally {
        await writeFile(pkgFile, pkg);
      }
    },
  );

  it("builds one image per platform of an index base, and an index", { timeout: 600_000 }, async () => {
    const built = await tsop([
      "image",
      "build",
      "--base",
      `${registry.host}/base/node-multi:20`,
      "--push",
      `${registry.host}/op:multi`,
      "-o",
      "json",
    ]);
    expect(built.exitCode, built.stderr).toBe(0);
    const index = (await skopeoRaw("op:multi")) as {
      mediaType: string;
      manifests: Array<{ platform: { architecture: string } }>;
    };
    expect(index.mediaType).toBe("application/vnd.oci.image.index.v1+json");
    expect(index.manifests.map((m) => m.platform.architecture).sort()).toEqual(["amd64", "arm64"]);
    const arm = await execa("skopeo", [
      "inspect",
      "--tls-verify=false",
      "--override-arch",
      "arm64",
      `docker://${registry.host}/op:multi`,
    ]);
    expect((JSON.parse(arm.stdout) as { Architecture: string }).Architecture).toBe("arm64");
  });

  it(
    "the operator image given where its bundle belongs: run bundle and bundle validate say so",
    { timeout: 600_000 },
    async () => {
      const pushed = await tsop([
        "image",
        "build",
        "--base",
        `${registry.host}/base/node:20`,
        "--push",
        `${registry.host}/op:v1`,
      ]);
      expect(pushed.exitCode, pushed.stderr).toBe(0);
      const operator = `${registry.host}/op:v1`;
      for (const command of [
        ["run", "bundle", operator, "--dry-run"],
        ["bundle", "validate", operator],
      ]) {
        const result = await tsop(command);
        const what = `tsop ${command.join(" ")}:\n${result.stderr}`;
        expect(result.exitCode, what).toBe(1);
        expect(result.stderr, what).toContain(
          `${operator} is not a bundle image: it has no operators.operatorframework.io.bundle.* labels and no manifests/ directory`,
        );
        expect(result.stderr, what).toContain(
          "Pass the bundle image: build and push it with `tsop bundle push",
        );
        expect(result.stderr, what).not.toContain("more than the limit");
        expect(result.stderr, what).not.toContain("not built by tsop");
      }
    },
  );

  it("refuses a native addon that would cross architectures, naming it", { timeout: 600_000 }, async () => {
    const addon = join(project, "dist", "native", "addon.node");
    await execa("mkdir", ["-p", join(project, "dist", "native")]);
    await writeFile(addon, "not really an addon");
    try {
      const refused = await tsop([
        "image",
        "build",
        "--base",
        `${registry.host}/base/node-multi:20`,
        "--push",
        `${registry.host}/op:addon`,
      ]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain("dist/native/addon.node");
      expect(refused.stderr).toContain("linux/arm64");
      expect(refused.stderr).not.toContain("    at ");
      const here = await tsop([
        "image",
        "build",
        "--base",
        `${registry.host}/base/node-multi:20`,
        "--platform",
        `linux/${process.arch === "arm64" ? "arm64" : "amd64"}`,
        "--oci-layout",
        join(work, "layout"),
      ]);
      expect(here.exitCode, here.stderr).toBe(0);
      const copied = await execa("skopeo", ["inspect", `oci:${join(work, "layout")}:latest`]);
      expect((JSON.parse(copied.stdout) as { Layers: string[] }).Layers.length).toBe(3);
    } finally {
      await execa("rm", ["-rf", join(project, "dist", "native")]);
    }
  });
});
