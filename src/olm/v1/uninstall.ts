// `tsop olm uninstall --v1`: find OLM v1 → refuse while ClusterExtensions or ClusterCatalogs remain
// (unless --force, which deletes the ClusterExtensions first, waited until operator-controller has
// removed what it installed, then the ClusterCatalogs, while both components still run to clear
// their finalizers) → delete exactly what `olm install --v1` creates (release.ts installedRefs),
// plus any OLM v1 Deployment or CRD found elsewhere, in the shared delete order, and wait.
import { errorFrom, TsopError } from "../../common/errors.js";
import type { KubeClient } from "../../kube/client.js";
import { connect } from "../../kube/connect.js";
import { deleteAndWait } from "../../kube/delete.js";
import { describeRef, isNoMatch, isNotFound, type ObjectRef, refOf } from "../../kube/index.js";
import type { OlmClusterOptions } from "../status.js";
import type { UninstallResult } from "../uninstall.js";
import { detectOlmV1 } from "./detect.js";
import { v1Messages } from "./messages.js";
import { describeV1, installedRefs, loadV1Release, OLM_V1_GROUP } from "./release.js";

export interface UninstallV1Options extends OlmClusterOptions {
  /** Also delete the ClusterExtensions and ClusterCatalogs. */
  force?: boolean;
  releaseDir?: string;
}

export async function olmUninstallV1(options: UninstallV1Options): Promise<UninstallResult> {
  const started = Date.now();
  const remaining = () => Math.max(1000, options.timeoutMs - (Date.now() - started));
  const reporter = options.reporter;
  const release = await loadV1Release(options.releaseDir);
  const { client } = await connect(options);
  try {
    const existing = await detectOlmV1(client);
    if (existing.found.length === 0) throw errorFrom(v1Messages.notInstalled());
    const extensions = await listAll(client, "ClusterExtension");
    const catalogs = await listAll(client, "ClusterCatalog");
    const users = [...extensions, ...catalogs];
    if (users.length > 0 && !options.force)
      throw errorFrom(v1Messages.extensionsRemain(users.map(describeRef)));
    const { catalogd, operatorController } = existing.components;
    const version = `v1 (${describeV1({ catalogd: catalogd ?? "unknown", operatorController: operatorController ?? "unknown" })})`;
    reporter.info(`Uninstalling OLM ${version}`);
    const deleted: ObjectRef[] = [];
    const step = async (what: string, refs: ObjectRef[]) => {
      if (refs.length === 0) return;
      const outcome = await deleteAndWait(client, refs, { reporter, timeoutMs: remaining(), what });
      deleted.push(...outcome.deleted);
      if (outcome.left.length > 0)
        throw new TsopError(
          `uninstalling OLM ${version} stopped: these objects could not be removed:\n${outcome.left.map((l) => `  - ${l}`).join("\n")}`,
          {
            hint: "check catalogd's and operator-controller's logs (their finalizers), then run `tsop olm uninstall --v1` again",
          },
        );
    };
    if (users.length > 0) {
      reporter.warn(
        `--force: removing ${extensions.length} ClusterExtension(s) and ${catalogs.length} ClusterCatalog(s)`,
      );
      await step("the ClusterExtensions to be deleted", extensions);
      await step("the ClusterCatalogs to be deleted", catalogs);
    }
    await step("OLM v1 to be deleted", [...installedRefs(release), ...existing.found]);
    reporter.success(`OLM ${version} uninstalled`);
    return {
      version,
      deleted: deleted.map((r) => ({ name: r.name, namespace: r.namespace ?? "", kind: r.kind })),
      removedOperators: users.map(describeRef),
    };
  } finally {
    client.close();
  }
}

async function listAll(client: KubeClient, kind: string): Promise<ObjectRef[]> {
  try {
    const { items } = await client.list(`${OLM_V1_GROUP}/v1`, kind, { namespace: "" });
    return items.map(refOf).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    if (isNotFound(error) || isNoMatch(error)) return [];
    throw error;
  }
}
