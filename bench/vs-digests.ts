#!/usr/bin/env -S npx tsx
// Digest pinning side by side: `tsop bundle --use-image-digests` against `kustomize build
// config/manifests | operator-sdk generate bundle --use-image-digests` on the memcached fixture whose
// manager references 50 distinct images (its own image and 49 RELATED_IMAGE_* variables), all in a
// real docker-registry on 127.0.0.1 (put there with skopeo). operator-sdk resolves them with crane,
// one after another (plain HTTP: go-containerregistry's default for 127.0.0.1); tsop with its
// resolver (8 at a time, --plain-http). Each run is checked: both CSVs name every image by the digest
// skopeo reported, and the bundles agree. BENCH_RUNS (default 5), BENCH_IMAGES (default 50).
// Run: npm run bench:vs-digests
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { TSOP_BIN } from "../test/support/cli.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../test/support/registry.js";
import { BUNDLE_FLAGS, copyProject, sameBundle } from "./bundle-project.js";
import { fail, interleave, main, ok, pipeline, report, rigBinary, timed } from "./side-by-side.js";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const imageCount = Number(process.env.BENCH_IMAGES ?? 50);
const CSV = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";

/** Pushes `count` distinct images; returns tag reference → digest reference. */
async function pushImages(registry: TestRegistry, count: number): Promise<Map<string, string>> {
  const pinned = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const repository = `bench/image-${i}`;
    const digest = await pushTestImage(registry, repository, "v1", {
      layers: [[{ path: "id.txt", content: `image ${i}\n` }]],
    });
    pinned.set(`${registry.host}/${repository}:v1`, `${registry.host}/${repository}@${digest}`);
  }
  return pinned;
}

interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string; value?: string }>;
}

/** The manager runs the first image and names the others in RELATED_IMAGE_* variables. */
function referenceImages(project: string, images: string[]): void {
  const file = join(project, "config/manager/manager.yaml");
  const docs = readFileSync(file, "utf8")
    .split(/^---\n/m)
    .map((d) => parse(d) as { kind?: string; spec?: { template: { spec: { containers: Container[] } } } });
  const manager = docs.find((d) => d?.kind === "Deployment")?.spec?.template.spec.containers[0];
  if (!manager) fail(`no manager Deployment in ${file}`);
  manager.image = images[0]!;
  manager.env = [
    ...(manager.env ?? []),
    ...images.slice(1).map((image, i) => ({ name: `RELATED_IMAGE_OPERAND${i + 1}`, value: image })),
  ];
  writeFileSync(file, docs.map((d) => stringify(d)).join("---\n"));
}

/** Every image of the CSV (containers, RELATED_IMAGE_* values, relatedImages) is the pinned reference. */
function checkPinned(project: string, pinned: Map<string, string>, tool: string): void {
  const text = readFileSync(join(project, CSV), "utf8");
  const csv = parse(text) as {
    spec: {
      relatedImages?: Array<{ image: string }>;
      install: {
        spec: { deployments: Array<{ spec: { template: { spec: { containers: Container[] } } } }> };
      };
    };
  };
  const used = new Set<string>();
  for (const d of csv.spec.install.spec.deployments)
    for (const c of d.spec.template.spec.containers) {
      used.add(c.image);
      for (const e of c.env ?? []) if (e.name.startsWith("RELATED_IMAGE_") && e.value) used.add(e.value);
    }
  for (const r of csv.spec.relatedImages ?? []) used.add(r.image);
  const want = new Set(pinned.values());
  const wrong = [...used].filter((image) => !want.has(image));
  const missing = [...want].filter((image) => !used.has(image));
  const related = new Set((csv.spec.relatedImages ?? []).map((r) => r.image));
  if (wrong.length || missing.length || related.size !== pinned.size)
    fail(
      `${tool}: the CSV does not pin the ${pinned.size} images (${related.size} distinct relatedImages; not pinned: ${wrong.slice(0, 3).join(", ")}; missing: ${missing.slice(0, 3).join(", ")})`,
    );
}

main(async () => {
  const sdk = rigBinary("operator-sdk");
  const kustomize = rigBinary("kustomize");
  const registry = await startRegistry();
  const tsopDir = copyProject(false);
  const sdkDir = copyProject(true);
  try {
    const pinned = await pushImages(registry, imageCount);
    for (const dir of [tsopDir, sdkDir]) referenceImages(dir, [...pinned.keys()]);
    const flags = ["--use-image-digests", ...BUNDLE_FLAGS];
    const sdkScript = `${kustomize} build config/manifests | ${sdk} generate bundle -q --overwrite --package memcached-operator ${flags.join(" ")}`;
    const samples = await interleave(runs, 1, async () => {
      for (const dir of [tsopDir, sdkDir]) {
        rmSync(join(dir, "bundle"), { recursive: true, force: true });
        rmSync(join(dir, "bundle.Dockerfile"), { force: true });
      }
      const tsop = ok(
        "tsop bundle --use-image-digests",
        await timed(process.execPath, [TSOP_BIN, "bundle", "--skip-generate", "--plain-http", ...flags], {
          cwd: tsopDir,
        }),
      );
      const peer = ok(
        "operator-sdk generate bundle --use-image-digests",
        await pipeline(sdkScript, { cwd: sdkDir }),
      );
      checkPinned(tsopDir, pinned, "tsop");
      checkPinned(sdkDir, pinned, "operator-sdk");
      sameBundle(tsopDir, sdkDir);
      return { tsop: tsop.ms, "kustomize | operator-sdk": peer.ms };
    });
    report({
      benchmark: `tsop bundle --use-image-digests vs kustomize build | operator-sdk generate bundle --use-image-digests, ${imageCount} images on a local docker-registry`,
      runs,
      peers: ["kustomize | operator-sdk"],
      cases: [{ label: `memcached, ${imageCount} images`, samples }],
      notes: [
        "the registry is on 127.0.0.1 (no network latency): tsop's concurrency pays little here; bench:images shows it with 20 ms per request",
      ],
    });
  } finally {
    rmSync(tsopDir, { recursive: true, force: true });
    rmSync(sdkDir, { recursive: true, force: true });
    await registry.stop();
  }
});
