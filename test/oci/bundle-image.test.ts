// `tsop bundle push` and pullBundleImage against the real registry: skopeo reads what tsop pushed
// (labels included), pushes are reproducible, OCI layouts work, tsop's pull round-trips the bundle,
// and malicious layers are refused without writing anything.
import { cp, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RegistryClient } from "../../src/oci/client.js";
import { UnsafeArchiveError } from "../../src/oci/errors.js";
import { pullBundleImage } from "../../src/oci/pull.js";
import { parseReference } from "../../src/oci/reference.js";
import { runTsop } from "../support/cli.js";
import {
  type LayerFile,
  pushTestImage,
  skopeoCopyLayout,
  skopeoInspect,
  skopeoInspectRaw,
  startProxy,
  startRegistry,
  type TestRegistry,
  writeOciLayoutIndex,
} from "../support/registry.js";
import { readTree, testdir } from "../support/testdir.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/bundle", import.meta.url));
const PASSWORD = "s3cret-pass";

async function bundleCopy(): Promise<string> {
  const dir = await testdir();
  await cp(FIXTURE, join(dir, "bundle"), { recursive: true });
  return dir;
}

/** Auth files outlive single tests (some are made in beforeAll); removed when the file's tests end. */
const kept: string[] = [];
afterAll(() => Promise.all(kept.map((d) => rm(d, { recursive: true, force: true }))));

async function authFile(registry: TestRegistry, password = PASSWORD): Promise<string> {
  const dir = await testdir({}, { keep: true });
  kept.push(dir);
  await writeFile(
    join(dir, "auth.json"),
    JSON.stringify({
      auths: { [registry.host]: { auth: Buffer.from(`tester:${password}`).toString("base64") } },
    }),
  );
  return join(dir, "auth.json");
}

const expectedLabels = async () =>
  (
    parse(await readFile(join(FIXTURE, "metadata/annotations.yaml"), "utf8")) as {
      annotations: Record<string, string>;
    }
  ).annotations;

describe("tsop bundle push to an htpasswd registry over TLS", () => {
  let registry: TestRegistry;
  let auth: string;
  beforeAll(async () => {
    registry = await startRegistry({ auth: "htpasswd", tls: true });
    auth = await authFile(registry);
  });
  afterAll(() => registry?.stop());

  const push = (cwd: string, image: string, extra: string[] = [], env: Record<string, string> = {}) =>
    runTsop(["bundle", "push", image, "--registry-config", auth, "--ca-file", registry.caFile!, ...extra], {
      cwd,
      env: { HOME: cwd, ...env },
    });

  it("pushes an image skopeo can read, with the bundle labels, and prints its digest", async () => {
    const cwd = await bundleCopy();
    const result = await push(cwd, `${registry.host}/bundles/memcached:v0.0.1`);
    expect(result.stderr).toContain(`Pushed ${registry.host}/bundles/memcached:v0.0.1@sha256:`);
    expect(result.exitCode).toBe(0);
    const digest = result.stdout.trim();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const info = await skopeoInspect(registry, "bundles/memcached:v0.0.1");
    expect(info.Digest).toBe(digest);
    expect(info.Labels).toEqual(await expectedLabels());
    expect(info.Os).toBe("linux");
    expect(info.Layers).toHaveLength(1);
    const raw = JSON.parse(await skopeoInspectRaw(registry, "bundles/memcached:v0.0.1"));
    expect(raw.mediaType).toBe("application/vnd.oci.image.manifest.v1+json");
  });

  it("gives the same digest when pushed twice, from another checkout with other mtimes", async () => {
    const a = await bundleCopy();
    const b = await bundleCopy();
    await utimes(join(b, "bundle/metadata/annotations.yaml"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const first = await push(a, `${registry.host}/bundles/repro:one`);
    const second = await push(b, `${registry.host}/bundles/repro:two`, ["-o", "json"]);
    expect(second.exitCode).toBe(0);
    const json = JSON.parse(second.stdout);
    expect(json.digest).toBe(first.stdout.trim());
    expect(json.files).toContain("manifests/memcached-operator.clusterserviceversion.yaml");
    expect(json.files).toContain("tests/scorecard/config.yaml");
    // SOURCE_DATE_EPOCH changes mtimes and `created`, hence the digest, deterministically.
    const dated1 = await push(a, `${registry.host}/bundles/repro:dated`, [], {
      SOURCE_DATE_EPOCH: "1700000000",
    });
    const dated2 = await push(b, `${registry.host}/bundles/repro:dated`, [], {
      SOURCE_DATE_EPOCH: "1700000000",
    });
    expect(dated1.stdout).toBe(dated2.stdout);
    expect(dated1.stdout).not.toBe(first.stdout);
  });

  it("round-trips through tsop's pull: the same manifests, metadata and tests", async () => {
    const cwd = await bundleCopy();
    const pushed = await push(cwd, `${registry.host}/bundles/trip:v1`);
    const dest = join(await testdir(), "pulled");
    const pulled = await pullBundleImage(`${registry.host}/bundles/trip:v1`, dest, {
      registryConfig: auth,
      caFile: registry.caFile!,
      env: { HOME: cwd },
    });
    expect(pulled.digest).toBe(pushed.stdout.trim());
    expect(pulled.labels).toEqual(await expectedLabels());
    expect(await readTree(dest)).toEqual(await readTree(join(cwd, "bundle")));
  });

  it("fails clearly: wrong password (never printed), missing annotations, no manifests", async () => {
    const cwd = await bundleCopy();
    const wrong = await authFile(registry, "Wr0ng-Secret");
    const denied = await runTsop(
      [
        "bundle",
        "push",
        `${registry.host}/bundles/x:v1`,
        "--registry-config",
        wrong,
        "--ca-file",
        registry.caFile!,
      ],
      { cwd, env: { HOME: cwd } },
    );
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toContain(`authentication failed for ${registry.host}`);
    expect(denied.stderr + denied.stdout).not.toContain("Wr0ng-Secret");
    expect(denied.stdout).toBe("");

    const untrusted = await runTsop(
      ["bundle", "push", `${registry.host}/bundles/x:v1`, "--registry-config", auth],
      {
        cwd,
        env: { HOME: cwd },
      },
    );
    expect(untrusted.exitCode).toBe(1);
    expect(untrusted.stderr).toContain("certificate not trusted");
    expect(untrusted.stderr).toContain("--ca-file");

    await writeFile(join(cwd, "bundle/metadata/annotations.yaml"), "annotations: [1]\n");
    const bad = await push(cwd, `${registry.host}/bundles/x:v1`);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('annotations.yaml has no "annotations" map');

    const empty = await testdir({ "bundle/metadata/annotations.yaml": "annotations: {}\n" });
    const none = await push(empty, `${registry.host}/bundles/x:v1`);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain("manifests is missing or empty");

    const badRef = await push(cwd, "Bundles/X:v1");
    expect(badRef.exitCode).toBe(1);
    expect(badRef.stderr).toContain('invalid image reference "Bundles/X:v1"');
  });
});

describe("tsop bundle push to a token-auth registry, and --oci-layout", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ auth: "token" });
  });
  afterAll(() => registry?.stop());

  it("pushes with a push-scoped token from $REGISTRY_AUTH_FILE", async () => {
    const cwd = await bundleCopy();
    const result = await runTsop(["-v", "bundle", "push", `${registry.host}/team/bundle:v1`], {
      cwd,
      env: { HOME: cwd, REGISTRY_AUTH_FILE: await authFile(registry) },
    });
    expect(result.exitCode).toBe(0);
    // Even the verbose log names where credentials came from, never them or the tokens (JWTs).
    expect(result.stderr).toContain("credentials for");
    expect(result.stderr).not.toContain(PASSWORD);
    expect(result.stderr).not.toContain(Buffer.from(`tester:${PASSWORD}`).toString("base64"));
    expect(result.stderr).not.toMatch(/eyJ[\w-]+\./);
    expect((await skopeoInspect(registry, "team/bundle:v1")).Digest).toBe(result.stdout.trim());
    expect(registry.issuer!.requests.flatMap((r) => r.scopes)).toContain("repository:team/bundle:pull,push");
  });

  it("is what `tsop bundle validate <image>` reads, through tsop's pull", async () => {
    const cwd = await bundleCopy();
    const env = { HOME: cwd, REGISTRY_AUTH_FILE: await authFile(registry) };
    const pushed = await runTsop(["bundle", "push", `${registry.host}/team/validate:v1`], { cwd, env });
    const digest = pushed.stdout.trim();
    const validated = await runTsop(["bundle", "validate", `${registry.host}/team/validate:v1`], {
      cwd,
      env,
    });
    expect(digest).toMatch(/^sha256:/);
    expect(validated.stderr).toContain(digest);
    // The validator saw the pushed files (the fixture CSV is deliberately incomplete).
    expect(validated.stdout).toContain("manifests/memcached-operator.clusterserviceversion.yaml");
  });

  it("writes an OCI layout skopeo reads, with the same digest as a push", async () => {
    const cwd = await bundleCopy();
    const layout = await runTsop(["bundle", "push", "example.com/team/bundle:v1", "--oci-layout", "out"], {
      cwd,
      env: { HOME: cwd },
    });
    expect(layout.exitCode).toBe(0);
    const { stdout } = await execa("skopeo", ["inspect", `oci:${join(cwd, "out")}:v1`]);
    const info = JSON.parse(stdout);
    expect(info.Digest).toBe(layout.stdout.trim());
    expect(info.Labels).toEqual(await expectedLabels());
    // A second tag in the same layout keeps the first.
    await runTsop(["bundle", "push", "example.com/team/bundle:v2", "--oci-layout", "out"], {
      cwd,
      env: { HOME: cwd },
    });
    const index = JSON.parse(await readFile(join(cwd, "out/index.json"), "utf8"));
    expect(
      index.manifests.map(
        (m: { annotations: Record<string, string> }) => m.annotations["org.opencontainers.image.ref.name"],
      ),
    ).toEqual(["v1", "v2"]);
    const pushed = await runTsop(["bundle", "push", `${registry.host}/team/bundle:v1`], {
      cwd,
      env: { HOME: cwd, REGISTRY_AUTH_FILE: await authFile(registry) },
    });
    expect(pushed.stdout).toBe(layout.stdout);
  });
});

describe("pulling malicious or odd images", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
  });
  afterAll(() => registry?.stop());

  const ok: LayerFile[] = [
    { path: "manifests/", type: "directory" },
    { path: "manifests/csv.yaml", content: "kind: ClusterServiceVersion\n" },
    { path: "metadata/annotations.yaml", content: "annotations: {}\n" },
  ];

  async function pullInto(repo: string, layers: LayerFile[][], limits = {}) {
    await pushTestImage(registry, repo, "v1", { layers });
    const parent = await testdir();
    const dest = join(parent, "out");
    const error = await pullBundleImage(`${registry.host}/${repo}:v1`, dest, {
      limits,
      env: { HOME: parent },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { parent, dest, error: error as Error | undefined };
  }

  it.each<[string, LayerFile[], string]>([
    ["dotdot", [{ path: "../evil.txt", content: "x" }], 'entry "../evil.txt" escapes the target directory'],
    ["nested-dotdot", [{ path: "manifests/../../evil", content: "x" }], "escapes the target directory"],
    ["absolute", [{ path: "/etc/evil", content: "x" }], 'entry "/etc/evil" is an absolute path'],
    [
      "symlink-escape",
      [{ path: "manifests/link", type: "symlink", linkname: "../../../etc" }],
      "is a symlink escaping the target",
    ],
    [
      "symlink-absolute",
      [{ path: "manifests/link", type: "symlink", linkname: "/etc/passwd" }],
      "is a symlink to an absolute path",
    ],
    [
      "through-symlink",
      [
        { path: "manifests/dir", type: "symlink", linkname: "../metadata" },
        { path: "manifests/dir/owned.yaml", content: "x" },
      ],
      "goes through the symlink dir",
    ],
    [
      "hardlink-escape",
      [{ path: "manifests/h", type: "link", linkname: "../../etc/passwd" }],
      "is a hard link that escapes",
    ],
    [
      "hardlink-missing",
      [{ path: "manifests/h", type: "link", linkname: "metadata/nothing" }],
      "which is not a file extracted before it",
    ],
    ["device", [{ path: "manifests/null", type: "character-device" }], "is a character device"],
    ["fifo", [{ path: "manifests/pipe", type: "fifo" }], "is a fifo"],
  ])("refuses %s and writes nothing", async (repo, files, reason) => {
    const { parent, dest, error } = await pullInto(`bad/${repo}`, [[...ok, ...files]]);
    expect(error).toBeInstanceOf(UnsafeArchiveError);
    expect(error?.message).toContain(reason);
    expect(await stat(dest).catch(() => undefined)).toBeUndefined();
    expect(await readdir(parent)).toEqual([]);
  });

  it("enforces size and entry limits", async () => {
    const big = await pullInto(
      "bad/big",
      [[...ok, { path: "manifests/big.yaml", content: "x".repeat(5000) }]],
      {
        maxFileBytes: 1000,
      },
    );
    expect(big.error?.message).toContain(
      'entry "manifests/big.yaml" is 5000 bytes, more than the limit of 1000',
    );
    const many = await pullInto("bad/many", [ok], { maxEntries: 2 });
    expect(many.error?.message).toContain("past the limit of 2 entries");
    const bomb = await pullInto(
      "bad/bomb",
      [[...ok, { path: "manifests/zeros", content: Buffer.alloc(300_000) }]],
      {
        maxTotalBytes: 100_000,
      },
    );
    // Refused while streaming: by the declared entry sizes, or by the inflated byte count.
    expect(bomb.error?.message).toMatch(
      /takes the image past 100000 bytes|decompresses to more than 100000 bytes/,
    );
  });

  it("applies whiteouts, follows hard links inside the bundle, keeps only bundle directories", async () => {
    const { dest, error } = await pullInto("odd/layers", [
      [
        ...ok,
        { path: "manifests/old.yaml", content: "old" },
        { path: "etc/passwd", content: "not extracted" },
        { path: "tests/scorecard/config.yaml", content: "kind: Configuration\n" },
      ],
      [
        { path: "manifests/.wh.old.yaml", content: "" },
        { path: "metadata/copy.yaml", type: "link", linkname: "metadata/annotations.yaml" },
        { path: "manifests/alias.yaml", type: "symlink", linkname: "csv.yaml" },
      ],
    ]);
    expect(error).toBeUndefined();
    const tree = await readTree(dest);
    expect(Object.keys(tree)).toEqual([
      "manifests/alias.yaml",
      "manifests/csv.yaml",
      "metadata/annotations.yaml",
      "metadata/copy.yaml",
      "tests/scorecard/config.yaml",
    ]);
    expect(tree["metadata/copy.yaml"]).toBe("annotations: {}\n");
  });

  it("pushes over plain HTTP only to the registries --plain-http lists, through HTTP_PROXY", async () => {
    const proxy = await startProxy();
    try {
      const cwd = await bundleCopy();
      const name = `registry.test:${registry.host.split(":")[1]}`;
      const env = { HOME: cwd, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url };
      const refused = await runTsop(["bundle", "push", `${name}/plain/bundle:v1`], { cwd, env });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain("the server does not speak HTTPS");
      const pushed = await runTsop(
        ["bundle", "push", `${name}/plain/bundle:v1`, `--plain-http=other:1,${name}`],
        {
          cwd,
          env,
        },
      );
      expect(pushed.stderr).toContain(`Pushed ${name}/plain/bundle:v1@`);
      expect((await skopeoInspect(registry, "plain/bundle:v1")).Digest).toBe(pushed.stdout.trim());
      expect(proxy.targets).toContain(name);
    } finally {
      await proxy.stop();
    }
  });

  it("picks the image for this machine from a multi-platform index, and resolves the index digest", async () => {
    const layout = await testdir();
    const arch = process.arch === "arm64" ? "arm64" : "amd64";
    const other = arch === "amd64" ? "arm64" : "amd64";
    const indexDigest = await writeOciLayoutIndex(layout, "multi", [
      { architecture: other, layers: [[...ok, { path: "manifests/arch.txt", content: other }]] },
      { architecture: arch, layers: [[...ok, { path: "manifests/arch.txt", content: arch }]] },
    ]);
    await skopeoCopyLayout(registry, layout, "multi", "multi/bundle:v1");
    expect((await skopeoInspect(registry, "multi/bundle:v1")).Digest).toBe(indexDigest);
    const parent = await testdir();
    const pulled = await pullBundleImage(`${registry.host}/multi/bundle:v1`, join(parent, "out"), {
      env: { HOME: parent },
    });
    expect(pulled.digest).toBe(indexDigest);
    expect(await readFile(join(parent, "out/manifests/arch.txt"), "utf8")).toBe(arch);
    const client = new RegistryClient({ env: { HOME: parent } });
    expect((await client.resolveDigest(parseReference(`${registry.host}/multi/bundle:v1`))).digest).toBe(
      indexDigest,
    );
    client.close();
  });

  it("refuses to unpack over a non-empty directory and reports a missing image", async () => {
    await pushTestImage(registry, "good/bundle", "v1", { layers: [ok] });
    const parent = await testdir();
    await mkdir(join(parent, "out"));
    await writeFile(join(parent, "out", "keep.txt"), "mine");
    await expect(
      pullBundleImage(`${registry.host}/good/bundle:v1`, join(parent, "out"), { env: { HOME: parent } }),
    ).rejects.toThrow("already exists and is not empty");
    expect(await readFile(join(parent, "out", "keep.txt"), "utf8")).toBe("mine");
    await expect(
      pullBundleImage(`${registry.host}/good/bundle:v404`, join(parent, "new"), { env: { HOME: parent } }),
    ).rejects.toThrow(`image ${registry.host}/good/bundle:v404 not found`);
  });
});
