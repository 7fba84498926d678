// `tsop generate` warns about what the code needs and no @Rbac grants (issue 42, item 3): the
// client calls and the controller wiring --derive-rbac reads, each named by file:line:col with the
// @Rbac line to add; without failing, and without changing role.yaml (so --check is unaffected)
// unless --derive-rbac is given.
import { describe, expect, it } from "vitest";
import { resource, runGenerate } from "./support.js";

const API = resource("  size?: string;", { decorators: "@Status()" }).replace(
  "KubeObject<ThingSpec>",
  "KubeObject<ThingSpec, { ok?: boolean }>",
);

const CONTROLLER = [
  'import { Rbac, type ReconcileContext, type Request } from "tsop";',
  'import { Thing } from "../api/types.js";',
  'const CONFIG_MAP = { apiVersion: "v1", kind: "ConfigMap" } as const;',
  '@Rbac({ groups: ["things.tsop.dev"], resources: ["things"], verbs: ["get", "list", "watch", "update", "patch"] })',
  '@Rbac({ groups: ["things.tsop.dev"], resources: ["things/status"], verbs: ["get", "update", "patch"] })',
  '@Rbac({ groups: ["things.tsop.dev"], resources: ["things/finalizers"], verbs: ["update"] })',
  '@Rbac({ groups: [""], resources: ["secrets"], verbs: ["*"] })',
  "export class ThingReconciler {",
  "  async reconcile(request: Request, ctx: ReconcileContext) {",
  "    const thing = await ctx.client.get(Thing, request);",
  "    await ctx.client.list(CONFIG_MAP, { namespace: request.namespace });",
  '    await ctx.client.create({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" } } as const);',
  "    return thing ? undefined : undefined;",
  "  }",
  "}",
  "declare const manager: { controller(k: unknown): { owns(k: unknown): { complete(r: unknown): void } } };",
  'manager.controller(Thing).owns({ apiVersion: "apps/v1", kind: "Deployment" }).complete(new ThingReconciler());',
  "",
].join("\n");

const warnings = (lines: Array<{ level: string; message: string }>) =>
  lines.filter((l) => l.level === "warn").map((l) => l.message);

describe("tsop generate and the RBAC the code needs", () => {
  it("warns, naming file:line:col, the call and the @Rbac line, for what no @Rbac grants", async () => {
    const outcome = await runGenerate({ "api/types.ts": API, "controllers/main.ts": CONTROLLER });
    expect(outcome.error).toBeUndefined();
    expect(warnings(outcome.reporter.lines)).toEqual([
      'controllers/main.ts:17:1: manager.controller(Thing).owns({ apiVersion: "apps/v1", k… needs get, list, watch, create, update, patch, delete on deployments (API group "apps"), which no @Rbac grants: add @Rbac({ groups: ["apps"], resources: ["deployments"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] }) to a controller (or pass --derive-rbac to add the derived rules to role.yaml)',
      'controllers/main.ts:11:11: ctx.client.list(CONFIG_MAP, { namespace: request.namespac… needs list on configmaps (API group ""), which no @Rbac grants: add @Rbac({ groups: [""], resources: ["configmaps"], verbs: ["list"] }) to a controller (or pass --derive-rbac to add the derived rules to role.yaml)',
    ]);
    const role = outcome.after["config/rbac/role.yaml"] ?? "";
    expect(role).not.toContain("configmaps");
    expect(role).not.toContain("deployments");
  });

  it("with --derive-rbac adds those rules to role.yaml instead", async () => {
    const outcome = await runGenerate(
      { "api/types.ts": API, "controllers/main.ts": CONTROLLER },
      { deriveRbac: true },
    );
    expect(outcome.error).toBeUndefined();
    expect(warnings(outcome.reporter.lines)).toEqual([]);
    const role = outcome.after["config/rbac/role.yaml"] ?? "";
    expect(role).toContain("configmaps");
    expect(role).toContain("deployments");
  });
});
