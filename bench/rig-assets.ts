// Rig binaries for benchmarks that run outside vitest: builds (or finds) the real control plane,
// OLM and opm with the rig and links them into one directory (`npm run rig -- assets`), as
// test/support/rig-setup.ts does for the real test tier (TSOP_RIG_ASSETS, KUBEBUILDER_ASSETS).
// Needs root for the pod runner.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export function linkRigAssets(): void {
  if (process.env.TSOP_RIG_ASSETS) return;
  const rig = join(import.meta.dirname, "../scripts/rig/index.mjs");
  const names = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"];
  const assets = execFileSync(
    process.execPath,
    [rig, "assets", ...names, "olm", "catalog", "package-server", "cpb", "opm"],
    { encoding: "utf8" },
  ).trim();
  process.env.TSOP_RIG_ASSETS = assets;
  process.env.KUBEBUILDER_ASSETS = assets;
}
