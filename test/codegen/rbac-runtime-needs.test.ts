// `tsop generate` writes the rules the runtime itself needs because of how the code configures it
// (rbac/runtime-needs.ts): get/list/watch on CRDs for an optional kind, on Namespaces for
// cache.namespaceSelector; and nothing of the sort for code that uses neither.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/codegen/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { resource, runGenerate } from "./support.js";

const API = resource("  size?: string;");

function controller(wiring: string, managerOptions = "{}"): string {
  return [
    'import { Rbac } from "tsop";',
    'import { Thing } from "../api/types.js";',
    '@Rbac({ groups: ["things.tsop.dev"], resources: ["things"], verbs: ["get", "list", "watch"] })',
    "export class ThingReconciler { async reconcile() {} }",
    "declare const Manager: { create(o: unknown): { controller(k: unknown, o?: unknown): { owns(k: unknown, o?: unknown): { watches(k: unknown, h: unknown, o?: unknown): { complete(r: unknown): void } } } } };",
    `const manager = Manager.create(${managerOptions});`,
    `${wiring}.complete(new ThingReconciler());`,
    "",
  ].join("\n");
}

const OWNS = '.owns({ apiVersion: "apps/v1", kind: "Deployment" })';
const WATCHES = '.watches({ apiVersion: "v1", kind: "Secret" }, () => [])';

function rulesOf(role: string): string {
  return role.replace(/\s+/g, " ");
}

describe("tsop generate and the RBAC the runtime needs", () => {
  it("grants get, list, watch on CRDs when a kind is optional, and says why", async () => {
    for (const wiring of [
      `manager.controller(Thing, { optional: true })${OWNS}${WATCHES}`,
      `manager.controller(Thing).owns({ apiVersion: "x.io/v1", kind: "Y" }, { optional: true })${WATCHES}`,
      `manager.controller(Thing)${OWNS}.watches({ apiVersion: "x.io/v1", kind: "Y" }, () => [], { predicates: [() => true], optional: true })`,
    ]) {
      const outcome = await runGenerate({ "api/types.ts": API, "controllers/main.ts": controller(wiring) });
      expect(outcome.error).toBeUndefined();
      const role = rulesOf(outcome.after["config/rbac/role.yaml"] ?? "");
      expect(role).toContain(
        "- apiGroups: - apiextensions.k8s.io resources: - customresourcedefinitions verbs: - get - list - watch",
      );
      expect(role).not.toContain("namespaces");
      expect(outcome.reporter.lines.map((l) => l.message)).toContainEqual(
        expect.stringMatching(
          /^role\.yaml grants get, list, watch on customresourcedefinitions \(API group "apiextensions\.k8s\.io"\): controllers\/main\.ts:7:1 uses an optional kind/,
        ),
      );
    }
  });

  it("grants get, list, watch on namespaces when the cache has a namespaceSelector", async () => {
    const outcome = await runGenerate({
      "api/types.ts": API,
      "controllers/main.ts": controller(
        `manager.controller(Thing)${OWNS}${WATCHES}`,
        '{ cache: { namespaceSelector: { matchLabels: { "tsop.io/watched": "true" } } } }',
      ),
    });
    expect(outcome.error).toBeUndefined();
    const role = rulesOf(outcome.after["config/rbac/role.yaml"] ?? "");
    expect(role).toContain('- apiGroups: - "" resources: - namespaces verbs: - get - list - watch');
    expect(role).not.toContain("customresourcedefinitions");
  });

  it("grants neither without optional kinds or a namespaceSelector", async () => {
    const outcome = await runGenerate({
      "api/types.ts": API,
      "controllers/main.ts": controller(`manager.controller(Thing, { optional: false })${OWNS}${WATCHES}`),
    });
    const role = outcome.after["config/rbac/role.yaml"] ?? "";
    expect(role).not.toContain("customresourcedefinitions");
    expect(role).not.toContain("namespaces");
  });

  it("grants leases and patch on the primary and owned kinds when the manager shards", async () => {
    const outcome = await runGenerate({
      "api/types.ts": API,
      "controllers/main.ts": controller(
        `manager.controller(Thing)${OWNS}${WATCHES}`,
        '{ leaderElection: { id: "things.tsop.dev" }, sharding: {} }',
      ),
    });
    expect(outcome.error).toBeUndefined();
    const role = rulesOf(outcome.after["config/rbac/role.yaml"] ?? "");
    expect(role).toMatch(
      /- apiGroups: - coordination\.k8s\.io resources: - leases verbs: - create - delete - get - list - (update - watch|watch - update)/,
    );
    expect(role).toMatch(/things verbs: [^-]*(- \w+ )*- patch/);
    expect(role).toMatch(/deployments verbs: (- \w+ )*- patch/);
    expect(role).not.toMatch(/secrets verbs: (- \w+ )*- patch/);
    expect(outcome.reporter.lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /^role\.yaml grants get, list, watch, create, update, delete on leases .* uses sharding/,
      ),
    );
  });

  it("grants no leases without sharding", async () => {
    const outcome = await runGenerate({
      "api/types.ts": API,
      "controllers/main.ts": controller(
        `manager.controller(Thing)${OWNS}`,
        '{ leaderElection: { id: "x" } }',
      ),
    });
    expect(outcome.after["config/rbac/role.yaml"] ?? "").not.toContain("leases");
  });

  it("grants the shard Leases in the manager's namespace and patch on the wired kinds when config/manager passes --sharding", async () => {
    const outcome = await runGenerate({
      "api/types.ts": API,
      "controllers/main.ts": controller(
        `manager.controller(Thing)${OWNS}${WATCHES}`,
        '{ leaderElection: { id: "x" } }',
      ),
      "config/manager/manager.yaml": managerYaml(["--leader-elect", "--sharding"]),
    });
    expect(outcome.error).toBeUndefined();
    const role = rulesOf(outcome.after["config/rbac/role.yaml"] ?? "");
    // Least privilege: a Role in the manager's namespace, not Leases in every namespace.
    expect(role).toContain(
      "kind: Role metadata: name: manager-role namespace: system rules: - apiGroups: - coordination.k8s.io resources: - leases verbs: - create - delete - get - list - update - watch",
    );
    expect(role.match(/leases/g)).toHaveLength(1);
    expect(role).toContain("kind: RoleBinding metadata: name: manager-rolebinding namespace: system");
    expect(role).toMatch(/things verbs: [^-]*(- \w+ )*- patch/);
    expect(role).toMatch(/deployments verbs: (- \w+ )*- patch/);
    expect(role).not.toMatch(/secrets verbs: (- \w+ )*- patch/);
    expect(outcome.reporter.lines.map((l) => l.message)).toContainEqual(
      'role.yaml grants get, list, watch, create, update, delete on leases (API group "coordination.k8s.io") in namespace system: config/manager/manager.yaml (--sharding) uses sharding (each replica holds a shard Lease; the leader watches them and deletes dead ones)',
    );
  });

  it("follows the flag in config/manager: off, then on (the generate cache sees the change), then =false", async () => {
    const files = {
      "api/types.ts": API,
      "controllers/main.ts": controller(
        `manager.controller(Thing)${OWNS}`,
        '{ leaderElection: { id: "x" } }',
      ),
      "config/manager/manager.yaml": managerYaml(["--leader-elect"]),
    };
    const first = await runGenerate(files);
    expect(first.after["config/rbac/role.yaml"]).not.toContain("leases");
    const regenerate = async (args: string[]) => {
      await writeFile(join(first.dir, "config/manager/manager.yaml"), managerYaml(args));
      await generate({ cwd: first.dir }, new MemoryReporter());
      return readFile(join(first.dir, "config/rbac/role.yaml"), "utf8");
    };
    expect(await regenerate(["--leader-elect", "--sharding"])).toContain("leases");
    expect(await regenerate(["--leader-elect", "--sharding", "--sharding=false"])).not.toContain("leases");
  });
});

/** config/manager/manager.yaml as `tsop init` writes it, reduced to what matters here. */
function managerYaml(args: string[]): string {
  return [
    "apiVersion: v1",
    "kind: Namespace",
    "metadata: { name: system }",
    "---",
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata: { name: controller-manager, namespace: system }",
    "spec:",
    "  template:",
    "    spec:",
    "      containers:",
    "      - name: manager",
    "        image: controller:latest",
    "        args:",
    ...args.map((a) => `        - ${a}`),
    "",
  ].join("\n");
}
