// Fixture bundles for run-bundle tests (fixtures/run/memcached-*), read as the pull would leave them.
import { cp } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  type InstallableBundle,
  installable,
  loadBundle,
  type PullBundle,
} from "../../src/bundle/load/index.js";

export const FIXTURES = fileURLToPath(new URL("../../fixtures/run/", import.meta.url));

export function fixtureDir(version: "0.0.1" | "0.0.2"): string {
  return `${FIXTURES}memcached-${version}`;
}

export async function loadFixture(
  version: "0.0.1" | "0.0.2",
  image = `registry.test/memcached-bundle:v${version}`,
): Promise<InstallableBundle> {
  return installable(await loadBundle({ dir: fixtureDir(version) }), image);
}

/** A pull that copies a fixture directory instead of contacting a registry (image tag → fixture). */
export const fixturePull: PullBundle = async (image, destDir) => {
  const version = /v?(0\.0\.[12])$/.exec(image)?.[1] as "0.0.1" | "0.0.2" | undefined;
  if (!version) throw new Error(`no fixture for ${image}`);
  await cp(fixtureDir(version), destDir, { recursive: true });
  return { digest: `sha256:${"0".repeat(64)}`, dir: destDir };
};
