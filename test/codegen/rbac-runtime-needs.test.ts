// `tsop generate` writes the rules the runtime itself needs because of how the code configures it
// (rbac/runtime-needs.ts): get/list/watch on CRDs for an optional kind, on Namespaces for
// cache.namespaceSelector; and nothing of the sort for code that uses neither.
import { describe, expect, it } from "vitest";
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
});
