// Paths of the Go-built binaries for real-tier tests (set up by test/support/rig-setup.ts).
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Absolute path of a rig binary (etcd, kube-apiserver, kwok, olm, opm, operator-sdk, …). */
export function rigBinary(name: string): string {
  const assets = process.env.TSOP_RIG_ASSETS;
  if (!assets) throw new Error("TSOP_RIG_ASSETS is not set: run real-tier tests with `npm run test:real`.");
  const path = join(assets, name);
  if (!existsSync(path)) throw new Error(`rig binary "${name}" is missing from ${assets}`);
  return path;
}
