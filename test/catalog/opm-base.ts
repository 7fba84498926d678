// An opm base image the tests and `npm run cluster` assemble themselves (the bed has no internet to
// quay.io): the rig's opm binary (operator-registry v1.47.0, static) at /bin/opm and a world-writable /tmp for its
// cache, entrypoint /bin/opm, user 65532 as in opm's own image; an OCI layout pushed with skopeo.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pushTestImage, skopeoCopyLayout, type TestRegistry, writeOciLayout } from "../support/registry.js";
import { rigBinary } from "../support/rig.js";

export const OPM_BASE_REPOSITORY = "mirror/opm";

/** Pushes the base to <registry>/mirror/opm:v1.47.0 and returns that reference. */
export async function pushOpmBase(registry: TestRegistry, opm = rigBinary("opm")): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-opm-base-"));
  try {
    await writeOciLayout(dir, {
      tag: "t",
      // Uncompressed: gzip of the 60 MB binary would cost more than its transfer on loopback.
      uncompressed: true,
      architecture: process.arch === "arm64" ? "arm64" : "amd64",
      layers: [
        [
          { path: "bin", type: "directory" },
          { path: "bin/opm", content: await readFile(opm), mode: 0o755 },
          { path: "tmp", type: "directory", mode: 0o777 },
        ],
      ],
      runConfig: { Entrypoint: ["/bin/opm"], User: "65532:65532", Env: ["PATH=/bin"] },
    });
    await skopeoCopyLayout(registry, dir, "t", `${OPM_BASE_REPOSITORY}:v1.47.0`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return `${registry.host}/${OPM_BASE_REPOSITORY}:v1.47.0`;
}

/**
 * A stand-in opm base for tests that build a catalog image but never run it (the README replay):
 * one small layer with a placeholder /bin/opm, entrypoint /bin/opm. Returns the reference.
 */
export async function pushStandInOpmBase(
  registry: TestRegistry,
  repository = "opm",
  tag = "v1.47.0",
): Promise<string> {
  await pushTestImage(registry, repository, tag, {
    layers: [
      [
        { path: "bin/", type: "directory" },
        { path: "bin/opm", content: "#!/bin/sh\necho 'a stand-in: this image is never run'\n", mode: 0o755 },
      ],
    ],
    runConfig: { Entrypoint: ["/bin/opm"], User: "65532:65532" },
  });
  return `${registry.host}/${repository}:${tag}`;
}
