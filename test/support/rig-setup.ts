// Global setup of the real tier: builds (or finds in the cache) every Go-built component, links them
// into one assets directory (`npm run rig -- assets`: named by its contents, so parallel runs share
// it safely) and exports it as KUBEBUILDER_ASSETS (where startTestCluster looks for etcd and
// kube-apiserver, as controller-runtime's envtest does) and TSOP_RIG_ASSETS (every binary).
// A component that cannot be built fails the whole run with the builder's message: never a skip.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.js";

export default function setup(): void {
  // `npm run test:real` built the bed and links the peers as they are built (scripts/test-real.mjs).
  if (process.env.TSOP_RIG_PREPARED === "1" && process.env.TSOP_RIG_ASSETS) return;
  const rig = join(REPO_ROOT, "scripts/rig/index.mjs");
  let assets: string;
  try {
    assets = execFileSync(process.execPath, [rig, "assets"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
  } catch (error) {
    throw new Error(
      `The real test bed could not be built (npm run rig -- build failed: ${(error as Error).message}). ` +
        'The real tier needs Go 1.24+ and the Go module proxy; see README "Test bed".',
    );
  }
  process.env.KUBEBUILDER_ASSETS = assets;
  process.env.TSOP_RIG_ASSETS = assets;
}
