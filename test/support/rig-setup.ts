// Global setup of the real tier: builds (or finds in the cache) every Go-built component, links them
// into one assets directory and exports it as KUBEBUILDER_ASSETS (where startTestCluster looks for
// etcd and kube-apiserver, as controller-runtime's envtest does) and TSOP_RIG_ASSETS (every binary).
// A component that cannot be built fails the whole run with the builder's message: never a skip.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.js";

export default function setup(): void {
  const rig = join(REPO_ROOT, "scripts/rig/index.mjs");
  let listing: string;
  try {
    listing = execFileSync(process.execPath, [rig, "build"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
  } catch (error) {
    throw new Error(
      `The real test bed could not be built (npm run rig -- build failed: ${(error as Error).message}). ` +
        'The real tier needs Go 1.24+ and the Go module proxy; see README "Test bed".',
    );
  }
  const dir = execFileSync(process.execPath, [rig, "dir"], { encoding: "utf8" }).trim();
  const assets = join(dir, "assets");
  rmSync(assets, { recursive: true, force: true });
  mkdirSync(assets, { recursive: true });
  for (const line of listing.trim().split("\n")) {
    const [name, path] = line.split("\t");
    if (name && path) symlinkSync(path, join(assets, name));
  }
  process.env.KUBEBUILDER_ASSETS = assets;
  process.env.TSOP_RIG_ASSETS = assets;
}
