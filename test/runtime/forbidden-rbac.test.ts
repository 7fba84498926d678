// A 403 from RBAC names the refused verb, group, resource and namespace and the @Rbac line that
// grants it (issue 42, item 3): in the client's error and in the informer's log line, for a manager
// running as the operator's ServiceAccount (runAsOperator) whose Role lacks ConfigMaps.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/runtime/connect/errors.js";
import { runAsOperator } from "../../src/testing/index.js";
import { type Harness, harness } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const RBAC = {
  "service_account.yaml":
    "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: controller-manager\n  namespace: system\n",
  "role.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups: [cache.example.com]
  resources: [memcacheds]
  verbs: [get, list, watch]
`,
  "role_binding.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: manager-rolebinding
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: manager-role }
subjects:
- { kind: ServiceAccount, name: controller-manager, namespace: system }
`,
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function operatorManager(h: Harness) {
  const dir = await mkdtemp(join(tmpdir(), "tsop-forbidden-"));
  for (const [file, text] of Object.entries(RBAC)) await writeFile(join(dir, file), text);
  const identity = await runAsOperator(h.cluster, { rbacDir: dir, namespace: "ops" });
  return h.startManager({ kubeconfig: identity.kubeconfigPath });
}

const CONFIGMAPS_RULE = '@Rbac({ groups: [""], resources: ["configmaps"], verbs: ["list", "watch"] })';

describe("an RBAC 403", () => {
  it("in the client names the refused request and the @Rbac line to add", async () => {
    h = await harness();
    const manager = await operatorManager(h);
    const refused = await manager.client.apiReader
      .list({ apiVersion: "v1", kind: "ConfigMap" }, { namespace: "default" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    const err = refused as ApiError;
    expect(err.message).toContain(
      `RBAC refused list on configmaps in API group "" in namespace "default" to system:serviceaccount:ops:controller-manager: add ${CONFIGMAPS_RULE} to a controller`,
    );
    expect(err.hint).toMatch(/tsop generate/);

    const update = await manager.client
      .create({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "default" } })
      .catch((e: unknown) => e as Error);
    expect((update as Error).message).toContain(
      'add @Rbac({ groups: [""], resources: ["secrets"], verbs: ["create"] }) to a controller',
    );
    // Allowed reads still work: the rule the manifests grant.
    await expect(
      manager.client.apiReader.list({ apiVersion: "cache.example.com/v1alpha1", kind: "Memcached" }),
    ).resolves.toBeDefined();
  });

  it("in the informer's log line names the @Rbac line to add", async () => {
    h = await harness();
    const manager = await operatorManager(h);
    await manager.controller({ apiVersion: "v1", kind: "ConfigMap" }).complete(async () => undefined);
    const running = manager.start();
    running.catch(() => {});
    const line = await waitFor("the list failure logged", () =>
      h!.logs.find((l) => l.includes('"list failed; retrying"')),
    );
    expect(line).toContain(CONFIGMAPS_RULE.replaceAll('"', '\\"'));
  });

  it("that is not RBAC's (a terminating namespace, a webhook) gets no @Rbac advice", () => {
    const err = new ApiError("POST", "/api/v1/namespaces/x/configmaps", 403, {
      reason: "Forbidden",
      message:
        'configmaps "c" is forbidden: unable to create new content in namespace x because it is being terminated',
    });
    expect(err.refused).toBeUndefined();
    expect(err.message).not.toContain("@Rbac");
  });
});
