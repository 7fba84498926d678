// The hostile-bundle corpus (issue 15): bundles that try to read host files or exhaust the machine,
// given to the built CLI as a user would: `bundle validate <dir>`, `bundle validate oci:<layout>`,
// and `run bundle <image> --dry-run` for images in a real registry. Every case must exit 1 with a
// message naming the file, print no stack trace and no byte of the host file, and leave nothing in
// the temp directory.
import { execa } from "execa";
import { createHash } from "node:crypto";
import {
  cp,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTsop, TSOP_BIN } from "../support/cli.js";
import {
  type LayerFile,
  skopeoCopyLayout,
  startRegistry,
  tarLayer,
  type TestRegistry,
  writeOciLayout,
} from "../support/registry.js";
import { testdir } from "../support/testdir.js";
import { FIXTURES as RUN_FIXTURES } from "../run/fixtures.js";

const SECRET = "HOST-SECRET-c0ffee";
const HOST_FILE = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen}\ndata: {secret: ${SECRET}}\n`;
const FIXTURE = join(RUN_FIXTURES, "memcached-0.0.1");
const ANN = "operators.operatorframework.io.bundle.manifests.v1";

interface Place {
  /** The working directory (the bundle is ./bundle). */
  work: string;
  bundle: string;
  /** A directory outside the bundle holding secret.yaml. */
  host: string;
  /** TMPDIR of the tsop process: must be empty afterwards. */
  tmp: string;
}

async function place(): Promise<Place> {
  const root = await testdir();
  const p = {
    work: join(root, "work"),
    bundle: join(root, "work", "bundle"),
    host: join(root, "host"),
    tmp: join(root, "tmp"),
  };
  await mkdir(p.host, { recursive: true });
  await mkdir(p.tmp);
  await writeFile(join(p.host, "secret.yaml"), HOST_FILE);
  await cp(FIXTURE, p.bundle, { recursive: true });
  return p;
}

/** A relative link target that stays inside lexically (each l2 cancels a ..) but leaves physically. */
function chainTarget(absolute: string): string {
  return `${"l2/".repeat(30)}${"../".repeat(31)}${absolute.slice(1)}`;
}

async function expectRefused(
  p: Place,
  run: { stdout: string; stderr: string; exitCode: number },
  message: RegExp,
  exitCode = 1,
) {
  const output = run.stdout + run.stderr;
  expect(run.exitCode, output).toBe(exitCode);
  expect(output).toMatch(message);
  expect(output).not.toContain(SECRET);
  expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  expect(output).not.toContain("unexpected error");
  expect(await readdir(p.tmp)).toEqual([]);
  expect(await readFile(join(p.host, "secret.yaml"), "utf8")).toBe(HOST_FILE);
}

const validate = (p: Place, target = "bundle") =>
  runTsop(["bundle", "validate", target], { cwd: p.work, env: { TMPDIR: p.tmp }, timeoutMs: 60_000 });

describe("hostile bundle directories: bundle validate <dir>", () => {
  const cases: Array<[string, (p: Place) => Promise<void>, RegExp]> = [
    [
      "a symlink chain (l2 -> . and zz.yaml -> l2/l2/…/../../…/host file)",
      async (p) => {
        await symlink(".", join(p.bundle, "manifests/l2"));
        await symlink(chainTarget(join(p.host, "secret.yaml")), join(p.bundle, "manifests/zz.yaml"));
      },
      /manifests\/zz\.yaml is a symlink that leads outside the bundle/,
    ],
    [
      "a symlink loop",
      async (p) => {
        await symlink("b.yaml", join(p.bundle, "manifests/a.yaml"));
        await symlink("a.yaml", join(p.bundle, "manifests/b.yaml"));
      },
      /manifests\/a\.yaml is a symlink loop/,
    ],
    [
      "an absolute symlink",
      async (p) => symlink(join(p.host, "secret.yaml"), join(p.bundle, "manifests/abs.yaml")),
      /manifests\/abs\.yaml is a symlink that leads outside the bundle/,
    ],
    [
      "a .. symlink",
      async (p) => symlink("../../../host/secret.yaml", join(p.bundle, "manifests/up.yaml")),
      /manifests\/up\.yaml is a symlink that leads outside the bundle/,
    ],
    [
      "a manifests directory that is a link outside",
      async (p) => {
        await rm(join(p.bundle, "manifests"), { recursive: true });
        await symlink(p.host, join(p.bundle, "manifests"));
      },
      /manifests is a symlink that leads outside the bundle/,
    ],
    [
      "a dangling symlink",
      async (p) => symlink("nothing.yaml", join(p.bundle, "manifests/dangling.yaml")),
      /manifests\/dangling\.yaml is a symlink to nothing/,
    ],
    [
      "a hard link to a host file",
      async (p) => link(join(p.host, "secret.yaml"), join(p.bundle, "manifests/hard.yaml")),
      /manifests\/hard\.yaml is a hard link \(2 names\)/,
    ],
    [
      "a FIFO (reading it would block forever)",
      async (p) => {
        await execa("mkfifo", [join(p.bundle, "manifests/pipe.yaml")]);
      },
      /manifests\/pipe\.yaml is a FIFO; a bundle holds regular files only/,
    ],
    [
      "a character device",
      async (p) => {
        await execa("mknod", [join(p.bundle, "manifests/zero.yaml"), "c", "1", "5"]);
      },
      /manifests\/zero\.yaml is a character device/,
    ],
    [
      "a huge file (sparse, 40 MiB)",
      async (p) => {
        await writeFile(join(p.bundle, "manifests/huge.yaml"), "");
        await truncate(join(p.bundle, "manifests/huge.yaml"), 40 * 1024 * 1024);
      },
      /manifests\/huge\.yaml is 41943040 bytes, more than the limit of 33554432/,
    ],
    [
      "a huge count of files",
      async (p) => {
        const dir = join(p.bundle, "manifests");
        await Promise.all(Array.from({ length: 10_001 }, (_, i) => writeFile(join(dir, `f${i}.yaml`), "")));
      },
      /manifests\/ holds 10003 entries, more than the limit of 10000/,
    ],
  ];
  for (const [what, setup, message] of cases) {
    it(`refuses ${what}`, async () => {
      const p = await place();
      await setup(p);
      await expectRefused(p, await validate(p), message);
    }, 60_000);
  }

  it("refuses a manifests annotation that leaves the bundle, without reading or printing the host dir", async () => {
    const p = await place();
    const file = join(p.bundle, "metadata/annotations.yaml");
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(/(manifests\.v1: ).*/, `$1manifests/../../../host/`));
    expect(await readFile(file, "utf8")).toContain("../../../host/");
    const run = await validate(p);
    await expectRefused(
      p,
      run,
      /LOAD-03 +metadata\/annotations\.yaml: annotations\.operators\.operatorframework\.io\.bundle\.manifests\.v1: "manifests\/\.\.\/\.\.\/\.\.\/host\/" holds "\." or "\.\."/,
    );
  });

  it("reports a YAML bomb in a manifest as a finding naming the file, without expanding it", async () => {
    const p = await place();
    const levels = ["a: &a [x,x,x,x,x,x,x,x,x]"];
    for (let i = 1; i < 9; i++)
      levels.push(
        `l${i}: &l${i} [${Array(9)
          .fill(i === 1 ? "*a" : `*l${i - 1}`)
          .join(",")}]`,
      );
    await writeFile(join(p.bundle, "manifests/bomb.yaml"), `${levels.join("\n")}\n`);
    const run = await validate(p);
    await expectRefused(
      p,
      run,
      /LOAD-01 +manifests\/bomb\.yaml: cannot parse YAML at line 1: the YAML aliases \(\*name references\) expand too much; refusing a possible YAML bomb/,
    );
  });

  it("a symlink inside the bundle is read (the link is resolved, and it stays inside)", async () => {
    const p = await place();
    await mkdir(join(p.bundle, "shared"));
    const crd = "manifests/cache.example.com_memcacheds.yaml";
    await cp(join(p.bundle, crd), join(p.bundle, "shared/crd.yaml"));
    await rm(join(p.bundle, crd));
    await symlink("../shared/crd.yaml", join(p.bundle, crd));
    const run = await validate(p);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("bundle bundle is valid");
  });
});

// ------------------------------------------------------------------------------------------------
// Images: the same attacks inside layers, pulled by `run bundle --dry-run` and `bundle validate`.

async function fixtureLayer(): Promise<LayerFile[]> {
  const files: LayerFile[] = [
    { path: "manifests/", type: "directory" },
    { path: "metadata/", type: "directory" },
  ];
  for (const dir of ["manifests", "metadata"]) {
    for (const name of (await readdir(join(FIXTURE, dir))).sort())
      files.push({ path: `${dir}/${name}`, content: await readFile(join(FIXTURE, dir, name), "utf8") });
  }
  return files;
}

/** A gzip layer: the fixture's tar followed by `zeros` MiB of zeros, compressed while streamed. */
async function bombLayer(zeros: number): Promise<Buffer> {
  const tar = await tarLayer(await fixtureLayer());
  const chunk = Buffer.alloc(1024 * 1024);
  const parts: Buffer[] = [];
  async function* source() {
    yield tar;
    for (let i = 0; i < zeros; i++) yield chunk;
  }
  const gzip = createGzip({ level: 9 });
  gzip.on("data", (c: Buffer) => parts.push(c));
  await pipeline(Readable.from(source()), gzip);
  return Buffer.concat(parts);
}

const sha256 = (data: Buffer | string) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

/** An OCI layout whose one layer is `layer` (already gzip-compressed), tagged "t". */
async function layoutWithLayer(dir: string, layer: Buffer): Promise<void> {
  await mkdir(join(dir, "blobs", "sha256"), { recursive: true });
  const put = async (data: Buffer) => {
    await writeFile(join(dir, "blobs", "sha256", sha256(data).slice(7)), data);
    return { digest: sha256(data), size: data.length };
  };
  const config = await put(
    Buffer.from(
      JSON.stringify({
        architecture: "amd64",
        os: "linux",
        config: {},
        rootfs: { type: "layers", diff_ids: [] },
      }),
    ),
  );
  const manifest = await put(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
        layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...(await put(layer)) }],
      }),
    ),
  );
  await writeFile(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  await writeFile(
    join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          ...manifest,
          annotations: { "org.opencontainers.image.ref.name": "t" },
        },
      ],
    }),
  );
}

describe("hostile bundle images: run bundle --dry-run <image> and bundle validate oci:<layout>", () => {
  let registry: TestRegistry;
  let scratch: string;
  beforeAll(async () => {
    registry = await startRegistry();
    scratch = await mkdtemp(join(tmpdir(), "tsop-hostile-"));
  }, 60_000);
  afterAll(async () => {
    await registry?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  async function pushLayout(
    name: string,
    layers: LayerFile[][],
    extra: (dir: string) => Promise<void> = async () => {},
  ) {
    const dir = join(scratch, name);
    await writeOciLayout(dir, { layers, tag: "t" });
    await extra(dir);
    await skopeoCopyLayout(registry, dir, "t", `hostile/${name}:v1`);
    return { layout: dir, image: `${registry.host}/hostile/${name}:v1` };
  }

  const runDry = (p: Place, image: string) =>
    runTsop(["run", "bundle", image, "-n", "demo", "--dry-run", "--kubeconfig", "/nonexistent/kubeconfig"], {
      cwd: p.work,
      env: { TMPDIR: p.tmp, HOME: p.work },
      timeoutMs: 120_000,
    });

  it("the untouched fixture image runs (dry run) and validates: the corpus below fails only by its attack", async () => {
    const p = await place();
    const { image, layout } = await pushLayout("clean", [await fixtureLayer()]);
    const dry = await runDry(p, image);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("kind: CatalogSource");
    const local = await validate(p, `oci:${layout}:t`);
    expect(local.stderr).toContain(`bundle oci:${layout}:t`);
    expect(local.exitCode, local.stderr).toBe(0);
  }, 120_000);

  it("refuses a symlink chain that leads to a host file (run bundle and bundle validate)", async () => {
    const p = await place();
    const layer = [
      ...(await fixtureLayer()),
      { path: "manifests/l2", type: "symlink" as const, linkname: "." },
      {
        path: "manifests/zz.yaml",
        type: "symlink" as const,
        linkname: chainTarget(join(p.host, "secret.yaml")),
      },
    ];
    const { image, layout } = await pushLayout("chain", [layer]);
    await expectRefused(
      p,
      await runDry(p, image),
      /manifests\/zz\.yaml is a symlink that leads outside the bundle/,
    );
    await expectRefused(
      p,
      await validate(p, image),
      /manifests\/zz\.yaml is a symlink that leads outside the bundle/,
    );
    await expectRefused(
      p,
      await validate(p, `oci:${layout}:t`),
      /manifests\/zz\.yaml is a symlink that leads outside the bundle/,
    );
  }, 120_000);

  it("refuses an annotations.yaml whose manifests path leaves the bundle", async () => {
    const p = await place();
    const layer = (await fixtureLayer()).map((f) =>
      f.path === "metadata/annotations.yaml"
        ? {
            ...f,
            content: String(f.content).replace(
              /(manifests\.v1: ).*/,
              `$1manifests/${"../".repeat(12)}${p.host.slice(1)}/`,
            ),
          }
        : f,
    );
    expect(layer.some((f) => String(f.content ?? "").includes(`${ANN}: manifests/../`))).toBe(true);
    const { image } = await pushLayout("annotation", [layer]);
    await expectRefused(
      p,
      await runDry(p, image),
      /cannot be installed:\n.*metadata\/annotations\.yaml: annotations\.operators\.operatorframework\.io\.bundle\.manifests\.v1: .* holds "\." or "\.\."/,
    );
  }, 120_000);

  const layerCases: Array<[string, LayerFile[], RegExp]> = [
    [
      "a hard link to a host file",
      [{ path: "manifests/h.yaml", type: "link", linkname: "../../../../etc/passwd" }],
      /is a hard link that escapes/,
    ],
    [
      "an absolute symlink",
      [{ path: "manifests/a.yaml", type: "symlink", linkname: "/etc/passwd" }],
      /is a symlink to an absolute path/,
    ],
    ["a .. path", [{ path: "manifests/../../evil.yaml", content: "x" }], /escapes the target directory/],
    ["a device", [{ path: "manifests/null", type: "character-device" }], /is a character device/],
    ["a FIFO", [{ path: "manifests/pipe", type: "fifo" }], /is a fifo/],
  ];
  for (const [what, extra, message] of layerCases) {
    it(`refuses ${what} in a layer`, async () => {
      const p = await place();
      const { image } = await pushLayout(what.toLowerCase().replace(/\W+/g, "-").replace(/^-|-$/g, ""), [
        [...(await fixtureLayer()), ...extra],
      ]);
      await expectRefused(p, await runDry(p, image), message);
    }, 120_000);
  }

  it("refuses a huge file and a huge count of entries before unpacking them", async () => {
    const p = await place();
    const big = await pushLayout("big", [
      [...(await fixtureLayer()), { path: "manifests/big.yaml", content: Buffer.alloc(33 * 1024 * 1024) }],
    ]);
    await expectRefused(
      p,
      await runDry(p, big.image),
      /entry "manifests\/big\.yaml" is 34603008 bytes, more than the limit of 33554432/,
    );
    const many = Array.from({ length: 10_001 }, (_, i) => ({ path: `manifests/f${i}.yaml`, content: "" }));
    const count = await pushLayout("many", [[...(await fixtureLayer()), ...many]]);
    await expectRefused(p, await runDry(p, count.image), /past the limit of 10000 entries/);
  }, 180_000);

  it("refuses a gzip bomb while streaming, without inflating 256 MiB in memory", async () => {
    const p = await place();
    const layout = join(scratch, "bomb");
    const layer = await bombLayer(300);
    expect(layer.length).toBeLessThan(1024 * 1024); // 300 MiB of zeros compress ~1000:1
    await layoutWithLayer(layout, layer);
    // Max resident memory of the tsop process, as GNU time reports it (KiB).
    const timed = await execa(
      "/usr/bin/time",
      ["-f", "maxrss=%M", process.execPath, TSOP_BIN, "bundle", "validate", `oci:${layout}:t`],
      {
        cwd: p.work,
        env: { NO_COLOR: "1", TMPDIR: p.tmp },
        reject: false,
        timeout: 120_000,
      },
    );
    const rss = Number(/maxrss=(\d+)/.exec(timed.stderr)?.[1]);
    const run = {
      stdout: timed.stdout,
      stderr: timed.stderr.replace(/maxrss=\d+\n?/, ""),
      exitCode: timed.exitCode ?? -1,
    };
    await expectRefused(p, run, /decompresses to more than 268435456 bytes; refusing it/);
    expect(rss).toBeGreaterThan(0);
    expect(rss * 1024).toBeLessThan(200 * 1024 * 1024);
    // The same image from the registry, through run bundle.
    await skopeoCopyLayout(registry, layout, "t", "hostile/bomb:v1");
    await expectRefused(
      p,
      await runDry(p, `${registry.host}/hostile/bomb:v1`),
      /decompresses to more than 268435456 bytes/,
    );
  }, 180_000);

  it("refuses an OCI layout whose index names a blob outside blobs/", async () => {
    const p = await place();
    const layout = join(scratch, "traversal");
    await writeOciLayout(layout, { layers: [await fixtureLayer()], tag: "t" });
    const index = JSON.parse(await readFile(join(layout, "index.json"), "utf8"));
    index.manifests[0].digest = "sha256:../../../host/secret.yaml";
    await writeFile(join(layout, "index.json"), JSON.stringify(index));
    await expectRefused(
      p,
      await validate(p, `oci:${layout}:t`),
      /OCI layout .*descriptor digest "sha256:\.\.\/\.\.\/\.\.\/host\/secret\.yaml"/,
    );
  });
});
