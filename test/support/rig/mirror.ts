// The test bed's registry mirror: what a disconnected cluster has for images on the internet. The
// bed's registry serves the scaffold's default operand image (docker.io/nginxinc/nginx-unprivileged)
// under <registry>/docker.io/…; tsop reads it through $TSOP_REGISTRY_MIRRORS (src/oci/mirrors.ts),
// and the pod runner — the bed's node — pulls it through a containers registries.conf with the same
// mirror (skopeo), so the digest `tsop bundle --use-image-digests` pins is the digest the pod runs.
// docker.io is out of reach here, so the image is a stand-in built from this machine's node: an HTTP
// server on the operand's port (8080, which the runner maps to a free port), as nginx-unprivileged
// serves there.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_WORKLOAD_IMAGE } from "../../../src/scaffold/api.js";
import { pushNodeBase } from "../../operator-image/node-base.js";
import type { TestRegistry } from "../registry.js";
import { repositoryOf } from "./images.js";

/** What the bed mirrors: repository prefixes (known before its registry starts, for kwok's stages). */
export const MIRRORED_SOURCES = [repositoryOf(DEFAULT_WORKLOAD_IMAGE)];

export interface BedMirror {
  /** Repository prefixes pulled through the mirror (the pod runner runs pods that use them). */
  sources: string[];
  /** A containers registries.conf with the mirrors, for the runner's skopeo. */
  registriesConf: string;
  /** The value of TSOP_REGISTRY_MIRRORS for tsop. */
  env: string;
}

const OPERAND_SERVER =
  'require("http").createServer((q, s) => s.end("nginx-unprivileged stand-in\\n"))' +
  '.listen(Number(process.argv[1]), () => console.log("serving on " + process.argv[1]))';

/** Where `source` lives in the bed's registry. */
export const mirrorOf = (registry: TestRegistry, source: string) => `${registry.host}/${source}`;

/** Pushes the mirrored images into `registry` and writes the registries.conf into `dir`. */
export async function serveMirror(registry: TestRegistry, dir: string): Promise<BedMirror> {
  const tag = DEFAULT_WORKLOAD_IMAGE.slice(repositoryOf(DEFAULT_WORKLOAD_IMAGE).length + 1);
  for (const source of MIRRORED_SOURCES) {
    await pushNodeBase(registry, source, tag, { cmd: ["-e", OPERAND_SERVER, "8080"] });
  }
  const registriesConf = join(dir, "registries.conf");
  await writeFile(
    registriesConf,
    "# The test bed's mirrors (written by test/support/rig/mirror.ts); the same as TSOP_REGISTRY_MIRRORS.\n" +
      MIRRORED_SOURCES.map(
        (source) =>
          `[[registry]]\nprefix = "${source}"\nlocation = "${source}"\n` +
          `[[registry.mirror]]\nlocation = "${mirrorOf(registry, source)}"\ninsecure = true\n`,
      ).join(""),
  );
  return {
    sources: MIRRORED_SOURCES,
    registriesConf,
    env: MIRRORED_SOURCES.map((source) => `${source}=${mirrorOf(registry, source)}`).join(","),
  };
}
