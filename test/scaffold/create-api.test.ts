// `tsop create api` through the built CLI: files, wiring, idempotence, user edits kept, bad input.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { MemoryReporter } from "../../src/common/reporter.js";
import { createApi as createApiInProcess } from "../../src/scaffold/index.js";
import { runTsop } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";
import { createApi, scaffoldProject } from "./helpers.js";

const MEMCACHED = ["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
const CLUSTER = ["--group", "infra", "--version", "v1", "--kind", "Cluster", "--namespaced=false"];

describe("tsop create api", () => {
  it("adds the API type, controller, test, sample and wiring for each kind", async () => {
    const dir = await scaffoldProject();
    const first = await createApi(dir, MEMCACHED);
    expect(first.stderr).toContain("created Memcached (cache.example.com/v1alpha1)");
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("created     src/api/v1alpha1/memcached.ts");
    const second = await createApi(dir, CLUSTER);
    expect(second.exitCode).toBe(0);

    const tree = await readTree(dir);
    const api = tree["src/api/v1alpha1/memcached.ts"]!;
    expect(api).toContain("export interface MemcachedSpec {");
    expect(api).toMatch(/@minimum 0\n\s+\* @maximum 10/);
    expect(api).toContain('group: "cache.example.com",');
    expect(api).toContain('scope: "Namespaced",');
    expect(api).toContain("export class Memcached extends KubeObject<MemcachedSpec, MemcachedStatus> {}");
    expect(tree["src/api/v1/cluster.ts"]).toContain('scope: "Cluster",');
    expect(tree["src/api/v1/cluster.ts"]).toContain("targetNamespace?: string;");

    const controller = tree["src/controllers/memcached.controller.ts"]!;
    expect(controller).toContain("export class MemcachedReconciler implements Reconciler");
    expect(controller).toContain('resources: ["memcacheds/status"]');
    expect(controller).toContain('resources: ["deployments"]');
    expect(controller).toContain('MEMCACHED_FINALIZER = "cache.example.com/finalizer"');
    expect(tree["test/memcached.controller.test.ts"]).toContain('from "tsop/testing"');
    expect(tree["test/memcached.perturb.test.ts"]).toContain(
      "MemcachedReconciler.setup(manager.controller(Memcached))",
    );

    const main = tree["src/main.ts"]!;
    expect(main).toContain('import { Memcached } from "./api/v1alpha1/memcached.js";');
    expect(main).toContain('import { ClusterReconciler } from "./controllers/cluster.controller.js";');
    expect(main).toMatch(
      /await MemcachedReconciler\.setup\(manager\.controller\(Memcached\)\);\nawait ClusterReconciler\.setup\(manager\.controller\(Cluster\)\);\n\/\/ \+tsop:scaffold:controllers/,
    );

    expect(parse(tree["config/samples/cache_v1alpha1_memcached.yaml"]!)).toMatchObject({
      apiVersion: "cache.example.com/v1alpha1",
      kind: "Memcached",
      metadata: { name: "memcached-sample" },
      spec: { size: 1 },
    });
    expect(parse(tree["config/samples/kustomization.yaml"]!).resources).toEqual([
      "cache_v1alpha1_memcached.yaml",
      "infra_v1_cluster.yaml",
    ]);
    expect(tree["config/samples/kustomization.yaml"]).toContain("# One example of each custom resource");
    expect(parse(tree["config/rbac/kustomization.yaml"]!).resources.slice(-4)).toEqual([
      "memcached_editor_role.yaml",
      "memcached_viewer_role.yaml",
      "cluster_editor_role.yaml",
      "cluster_viewer_role.yaml",
    ]);
    expect(parse(tree["config/rbac/memcached_viewer_role.yaml"]!)).toMatchObject({
      kind: "ClusterRole",
      metadata: { name: "memcached-viewer-role" },
      rules: [
        { apiGroups: ["cache.example.com"], resources: ["memcacheds"], verbs: ["get", "list", "watch"] },
        { apiGroups: ["cache.example.com"], resources: ["memcacheds/status"], verbs: ["get"] },
      ],
    });
    expect(parse(tree["config/crd/kustomization.yaml"]!).resources).toEqual([
      "bases/cache.example.com_memcacheds.yaml",
      "bases/infra.example.com_clusters.yaml",
    ]);

    const manager = parseAllDocuments(tree["config/manager/manager.yaml"]!)
      .map((d) => d.toJS())
      .find((d) => d.kind === "Deployment");
    expect(manager.spec.template.spec.containers[0].env.slice(1)).toEqual([
      { name: "RELATED_IMAGE_MEMCACHED", value: "docker.io/nginxinc/nginx-unprivileged:1.27-alpine" },
      { name: "RELATED_IMAGE_CLUSTER", value: "docker.io/nginxinc/nginx-unprivileged:1.27-alpine" },
    ]);
    expect(tree["config/manager/manager.yaml"]).toContain("# reads them at run time.");

    const project = parse(tree.PROJECT!);
    expect(project.resources).toEqual([
      {
        api: { crdVersion: "v1", namespaced: true },
        controller: true,
        domain: "example.com",
        group: "cache",
        kind: "Memcached",
        path: "src/api/v1alpha1/memcached.ts",
        plural: "memcacheds",
        version: "v1alpha1",
      },
      {
        api: { crdVersion: "v1", namespaced: false },
        controller: true,
        domain: "example.com",
        group: "infra",
        kind: "Cluster",
        path: "src/api/v1/cluster.ts",
        plural: "clusters",
        version: "v1",
      },
    ]);
  });

  it("keeps the user's edits in src/main.ts and PROJECT when adding a second kind", async () => {
    const dir = await scaffoldProject();
    expect((await createApi(dir, MEMCACHED)).exitCode).toBe(0);
    const mainPath = join(dir, "src/main.ts");
    const main = await readFile(mainPath, "utf8");
    const edited = main
      .replace(
        "await manager.start()",
        'manager.logger.info("starting, by the user");\nawait manager.start()',
      )
      .replace(
        "// +tsop:scaffold:imports",
        '// +tsop:scaffold:imports\nimport { hostname } from "node:os"; // user import',
      );
    await writeFile(mainPath, edited);
    const projectPath = join(dir, "PROJECT");
    const project = `${await readFile(projectPath, "utf8")}# user comment\nteam: storage\n`;
    await writeFile(projectPath, project);

    expect((await createApi(dir, CLUSTER)).exitCode).toBe(0);
    const after = await readFile(mainPath, "utf8");
    expect(after).toContain('manager.logger.info("starting, by the user");');
    expect(after).toContain('import { hostname } from "node:os"; // user import');
    expect(after).toContain("await ClusterReconciler.setup(manager.controller(Cluster));");
    const afterProject = await readFile(projectPath, "utf8");
    expect(afterProject).toContain("# user comment\nteam: storage");
    expect(parse(afterProject).resources.map((r: { kind: string }) => r.kind)).toEqual([
      "Memcached",
      "Cluster",
    ]);
  });

  it("re-scaffolds a kind with --force without duplicating wiring or PROJECT entries", async () => {
    const dir = await scaffoldProject();
    expect((await createApi(dir, MEMCACHED)).exitCode).toBe(0);
    const before = await readTree(dir);
    await writeFile(join(dir, "src/controllers/memcached.controller.ts"), "// my rewrite\n");
    const forced = await createApi(dir, [...MEMCACHED, "--force"]);
    expect(forced.exitCode).toBe(0);
    expect(forced.stderr).toContain("overwrote src/controllers/memcached.controller.ts (--force)");
    expect(await readTree(dir)).toEqual(before);
  });

  it("adds only a new version's API type with --controller=false", async () => {
    const dir = await scaffoldProject();
    expect((await createApi(dir, MEMCACHED)).exitCode).toBe(0);
    const result = await createApi(dir, [
      "--group",
      "cache",
      "--version",
      "v1beta1",
      "--kind",
      "Memcached",
      "--controller=false",
    ]);
    expect(result.exitCode).toBe(0);
    const tree = await readTree(dir);
    expect(tree["src/api/v1beta1/memcached.ts"]).toContain('version: "v1beta1",');
    expect(tree["src/main.ts"]!.match(/MemcachedReconciler\.setup/g)).toHaveLength(1);
    expect(parse(tree.PROJECT!).resources).toHaveLength(2);
  });

  it("adds a controller later to a kind created with --controller=false", async () => {
    const dir = await scaffoldProject();
    expect((await createApi(dir, [...MEMCACHED, "--controller=false"])).exitCode).toBe(0);
    let tree = await readTree(dir);
    expect(tree["src/controllers/memcached.controller.ts"]).toBeUndefined();
    expect(parse(tree.PROJECT!).resources[0].controller).toBe(false);
    // Asking for the API again is a duplicate; asking for only the missing controller is not.
    expect((await createApi(dir, MEMCACHED)).exitCode).toBe(2);
    const added = await createApi(dir, [...MEMCACHED, "--resource=false"]);
    expect(added.exitCode, added.stderr).toBe(0);
    tree = await readTree(dir);
    expect(tree["src/controllers/memcached.controller.ts"]).toContain("class MemcachedReconciler");
    expect(tree["src/main.ts"]).toContain("await MemcachedReconciler.setup(manager.controller(Memcached));");
    expect(parse(tree.PROJECT!).resources).toEqual([
      expect.objectContaining({
        kind: "Memcached",
        controller: true,
        api: { crdVersion: "v1", namespaced: true },
      }),
    ]);
    expect((await createApi(dir, [...MEMCACHED, "--resource=false"])).exitCode).toBe(2);
  });

  it("runs from any directory inside the project", async () => {
    const dir = await scaffoldProject();
    const result = await runTsop(["create", "api", ...MEMCACHED], { cwd: join(dir, "config/samples") });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, "src/api/v1alpha1/memcached.ts"), "utf8")).toContain("class Memcached");
  });
});

describe("tsop create api: bad input (exit 2, nothing written)", () => {
  it("lists every invalid group, version, kind and plural at once", async () => {
    const dir = await scaffoldProject();
    const before = await readTree(dir);
    const result = await createApi(dir, [
      "--group",
      "Cache_Group",
      "--version",
      "1.0",
      "--kind",
      "memcached",
      "--plural",
      "Memcacheds!",
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--group "Cache_Group" is not a DNS-1123 subdomain');
    expect(result.stderr).toContain('--version "1.0" is not a Kubernetes API version');
    expect(result.stderr).toContain('--kind "memcached" is not PascalCase');
    expect(result.stderr).toContain('--plural "Memcacheds!" is not a DNS-1123 label');
    expect(result.stderr).toContain("nothing was written");
    expect(await readTree(dir)).toEqual(before);
  });

  it.each([
    [
      { group: "cache", version: "v1alpha", kind: "Memcached" },
      '--version "v1alpha" is not a Kubernetes API version',
    ],
    [{ group: "-cache", version: "v1", kind: "Memcached" }, '--group "-cache" is not a DNS-1123 subdomain'],
    [{ group: "cache", version: "v1", kind: "Mem-cached" }, '--kind "Mem-cached" is not PascalCase'],
    [
      { group: "cache", version: "v1", kind: "Pod" },
      '--kind "Pod" clashes with a name the scaffolded code uses',
    ],
    [{ group: "cache", version: "v1", kind: "Promise" }, '--kind "Promise" clashes'],
    [{ group: `${"a.".repeat(125)}a`, version: "v1", kind: "Memcached" }, 'the API group "a.a.a.'],
  ])("rejects %j (usage error, nothing written)", async (options, message) => {
    const dir = await scaffoldProject();
    const before = await readTree(dir);
    const error = await createApiInProcess({ cwd: dir, ...options }, new MemoryReporter()).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ exitCode: 2 });
    expect(String((error as Error).message)).toContain(message);
    if (options.group.length > 200)
      expect(String((error as Error).message)).toContain("is longer than 253 characters");
    expect(await readTree(dir)).toEqual(before);
  });

  it.each([
    [
      ["--group", "cache", "--version", "v1", "--kind", "Memcached", "--namespaced", "maybe"],
      '"maybe" is not a boolean',
    ],
    [["--group", "cache", "--kind", "Memcached"], "required option '--version <version>' not specified"],
  ])("rejects %j on the command line", async (args, message) => {
    const dir = await scaffoldProject();
    const result = await createApi(dir, args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("refuses a kind that PROJECT already lists", async () => {
    const dir = await scaffoldProject();
    expect((await createApi(dir, MEMCACHED)).exitCode).toBe(0);
    const before = await readTree(dir);
    const result = await createApi(dir, MEMCACHED);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("Memcached (cache.example.com/v1alpha1) is already in PROJECT");
    expect(await readTree(dir)).toEqual(before);
  });

  it("refuses a plural another kind of the group uses, and parts of kinds that do not exist", async () => {
    const dir = await scaffoldProject();
    expect((await createApi(dir, MEMCACHED)).exitCode).toBe(0);
    const before = await readTree(dir);
    const plural = await createApi(dir, [
      "--group",
      "cache",
      "--version",
      "v1",
      "--kind",
      "Memcache",
      "--plural",
      "memcacheds",
    ]);
    expect(plural.exitCode).toBe(2);
    expect(plural.stderr).toContain('--plural "memcacheds" is already used by Memcached in group cache');
    const noApi = await createApi(dir, [
      "--group",
      "cache",
      "--version",
      "v1",
      "--kind",
      "Other",
      "--resource=false",
    ]);
    expect(noApi.exitCode).toBe(2);
    expect(noApi.stderr).toContain("--resource=false needs Other (cache.example.com/v1) to exist already");
    const nothing = await createApi(dir, [
      "--group",
      "cache",
      "--version",
      "v1",
      "--kind",
      "Other",
      "--resource=false",
      "--controller=false",
    ]);
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toContain("leave nothing to scaffold");
    expect(await readTree(dir)).toEqual(before);
  });

  it("refuses files that exist with other content, listing them all", async () => {
    const dir = await scaffoldProject();
    await writeFile(join(dir, "config/samples/cache_v1alpha1_memcached.yaml"), "mine: true\n");
    const before = await readTree(dir);
    const result = await createApi(dir, MEMCACHED);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /already exist with different content; nothing was written:\n {2}- config\/samples\/cache_v1alpha1_memcached.yaml/,
    );
    expect(result.stderr).toContain("--force");
    expect(await readTree(dir)).toEqual(before);
  });

  it("fails clearly when the insertion marker was removed from src/main.ts", async () => {
    const dir = await scaffoldProject();
    const mainPath = join(dir, "src/main.ts");
    await writeFile(
      mainPath,
      (await readFile(mainPath, "utf8")).replace("// +tsop:scaffold:controllers\n", ""),
    );
    const before = await readTree(dir);
    const result = await createApi(dir, MEMCACHED);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('src/main.ts has no "// +tsop:scaffold:controllers" line');
    expect(await readTree(dir)).toEqual(before);
  });

  it("needs a project", async () => {
    const dir = await testdir({});
    const result = await createApi(dir, MEMCACHED);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("no PROJECT file in");
    expect(result.stderr).toContain("tsop init");
  });
});
