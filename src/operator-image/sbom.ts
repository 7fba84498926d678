// The SBOM of the operator image (`tsop image build`): its production packages from the project's
// package-lock.json (what `npm ci --omit=dev` installed for this machine's platform) and the base
// by digest, in CycloneDX JSON (oci/sbom); written to --sbom-file, attached to a pushed image.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { tsopVersion } from "../common/version.js";
import { cyclonedxSbom } from "../oci/sbom/index.js";
import type { ProjectPackage } from "./labels.js";

export async function imageSbom(
  project: string,
  pkg: ProjectPackage,
  base: { repository: string; digest: string },
  epoch: number | undefined,
): Promise<Buffer> {
  const lockfilePath = join(project, "package-lock.json");
  return cyclonedxSbom({
    lockfile: await readFile(lockfilePath, "utf8"),
    lockfilePath,
    project: { name: pkg.name, version: pkg.version ?? "0.0.0" },
    base,
    platform: { os: process.platform, cpu: process.arch },
    tool: { version: tsopVersion() },
    ...(epoch !== undefined ? { epoch } : {}),
  });
}
