// The bundle directory as a whole: the new tree is the files tsop produces plus the user's own
// files carried over from the previous tree. Files tsop owns (manifests/, metadata/annotations.yaml,
// tests/scorecard/config.yaml) that it no longer produces are dropped (and reported). Pure: the
// tree is written by the command's output sink, as one directory swap.
import { isTsopTemp } from "../common/output/commit.js";

export { readTreeFiles } from "../common/tree.js";

export interface WriteResult {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}

/** Is this a file tsop owns in the bundle dir (so it is removed when no longer produced)? */
function owned(path: string): boolean {
  return (
    path.startsWith("manifests/") ||
    path === "metadata/annotations.yaml" ||
    path === "tests/scorecard/config.yaml"
  );
}

export interface BundleTree {
  /** Every file of the new bundle directory (the user's files carried over byte for byte). */
  files: Map<string, string | Buffer>;
  result: WriteResult;
  changed: boolean;
}

export function planBundleTree(
  files: ReadonlyMap<string, string>,
  previous: ReadonlyMap<string, string | Buffer>,
): BundleTree {
  const result: WriteResult = { created: [], updated: [], unchanged: [], removed: [] };
  const final = new Map<string, string | Buffer>(files);
  for (const [path, content] of previous) {
    if (final.has(path) || isTsopTemp(path.split("/").pop() ?? "")) continue;
    if (owned(path)) result.removed.push(path);
    else final.set(path, content);
  }
  for (const [path, content] of files) {
    const old = previous.get(path);
    if (old === undefined) result.created.push(path);
    else if (old === content) result.unchanged.push(path);
    else result.updated.push(path);
  }
  for (const list of Object.values(result)) (list as string[]).sort();
  const changed = result.created.length + result.updated.length + result.removed.length > 0;
  return { files: final, result, changed };
}
