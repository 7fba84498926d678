// Whether the project's manager runs sharded without saying so in code: the scaffolded main.ts
// reads `--sharding` into ManagerOptions.sharding (runtime/manager/options.ts), so the opt-in is the
// flag in the manager container's args in config/manager/manager.yaml, the file `tsop init` writes
// and `tsop deploy`, `tsop bundle` and `tsop helm` build from. Read through the generate cache's
// reader, so turning the flag on or off invalidates the cached role.yaml.
import { join } from "node:path";
import { goBoolFlag } from "../../common/go-flags.js";
import { readYamlValues } from "../../common/yaml/read-values.js";
import type { TreeReader } from "./config-bindings.js";

/** The manager manifest, relative to the project root (forward slashes, for messages). */
export const MANAGER_MANIFEST = "config/manager/manager.yaml";

/**
 * Whether a Deployment of `config/manager/manager.yaml` under `root` runs a container with
 * `--sharding` on. A missing or unreadable file is no opt-in (kustomize reports a broken file
 * when it builds).
 */
export function managerShards(root: string, reader: TreeReader): boolean {
  const text = reader.text(join(root, MANAGER_MANIFEST));
  if (text === undefined) return false;
  for (const doc of readYamlValues(text, { where: MANAGER_MANIFEST, onSyntaxError: () => undefined })) {
    const obj = doc as { kind?: unknown; spec?: { template?: { spec?: { containers?: unknown } } } } | null;
    if (obj?.kind !== "Deployment") continue;
    const containers = obj.spec?.template?.spec?.containers;
    if (!Array.isArray(containers)) continue;
    for (const c of containers as Array<{ args?: unknown } | null>)
      if (Array.isArray(c?.args) && goBoolFlag(c.args, "sharding")) return true;
  }
  return false;
}
