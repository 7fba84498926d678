// Finds the control plane's binaries the way controller-runtime's envtest does: an explicit path,
// else a directory named by the caller, else KUBEBUILDER_ASSETS (envtest's etcd and kube-apiserver),
// else TSOP_RIG_ASSETS (every component the tsop rig builds).
import { accessSync, constants } from "node:fs";
import { join, resolve } from "node:path";

export type BinaryName = "etcd" | "kube-apiserver" | "kube-controller-manager" | "kube-scheduler" | "kwok";

export interface BinaryLookup {
  /** Per-binary paths (win over every directory). */
  binaries?: Partial<Record<BinaryName, string>>;
  /** A directory holding the binaries by name (like envtest's BinaryAssetsDirectory). */
  binaryAssetsDirectory?: string;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Directories searched, in order, each with where it came from (for the error message). */
function searchPath(lookup: BinaryLookup, env: NodeJS.ProcessEnv): Array<{ dir: string; from: string }> {
  const dirs: Array<{ dir: string; from: string }> = [];
  if (lookup.binaryAssetsDirectory)
    dirs.push({ dir: lookup.binaryAssetsDirectory, from: "binaryAssetsDirectory" });
  if (env.KUBEBUILDER_ASSETS) dirs.push({ dir: env.KUBEBUILDER_ASSETS, from: "KUBEBUILDER_ASSETS" });
  if (env.TSOP_RIG_ASSETS) dirs.push({ dir: env.TSOP_RIG_ASSETS, from: "TSOP_RIG_ASSETS" });
  return dirs.map((d) => ({ ...d, dir: resolve(d.dir) }));
}

/** Absolute paths of `names`; throws one error naming every missing binary and how to get it. */
export function findBinaries<N extends BinaryName>(
  names: readonly N[],
  lookup: BinaryLookup = {},
  env: NodeJS.ProcessEnv = process.env,
): Record<N, string> {
  const dirs = searchPath(lookup, env);
  const found = {} as Record<N, string>;
  const missing: string[] = [];
  for (const name of names) {
    const explicit = lookup.binaries?.[name];
    if (explicit !== undefined) {
      const path = resolve(explicit);
      if (executable(path)) found[name] = path;
      else missing.push(`${name} (binaries.${name} = ${path} is not an executable file)`);
      continue;
    }
    const hit = dirs.map((d) => join(d.dir, name)).find(executable);
    if (hit) found[name] = hit;
    else missing.push(name);
  }
  if (missing.length > 0) throw new Error(missingMessage(missing, dirs));
  return found;
}

function missingMessage(missing: string[], dirs: Array<{ dir: string; from: string }>): string {
  const searched =
    dirs.length === 0
      ? "no directory to search (binaryAssetsDirectory, KUBEBUILDER_ASSETS and TSOP_RIG_ASSETS are all unset)"
      : `searched ${dirs.map((d) => `${d.dir} (${d.from})`).join(", ")}`;
  return (
    `the real control plane needs ${missing.join(", ")}: not found; ${searched}. ` +
    "Get them with `npm run rig -- build` in a tsop checkout and point TSOP_RIG_ASSETS (or binaryAssetsDirectory) " +
    "at a directory of the built binaries, or for etcd and kube-apiserver only, with controller-runtime's " +
    "setup-envtest (`KUBEBUILDER_ASSETS=$(setup-envtest use -p path)`)."
  );
}
