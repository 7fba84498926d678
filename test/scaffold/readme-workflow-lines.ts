// The README's "The workflow" block, shared by its fast-tier replay (no cluster) and its real-tier
// replay (the cluster lines on the real test bed with OLM).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli.js";

/** The lines that need a cluster: the fast tier lists them, the real tier runs them. */
export const CLUSTER_COMMANDS = /^tsop (install|run|deploy|undeploy|olm|cleanup)\b/;

/** The lines of the README's workflow block, comments stripped. */
export async function workflowLines(): Promise<string[]> {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## The workflow"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}
