// The PROJECT file: discovery from subdirectories, validation that lists every problem, and
// edits that keep what the user wrote.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  addResourceToProject,
  parseProject,
  readProject,
  renderNewProject,
} from "../../src/project/index.js";
import { testdir } from "../support/testdir.js";

const BASE = renderNewProject({
  domain: "example.com",
  projectName: "memcached-operator",
  image: "example.com/memcached-operator:0.0.1",
  license: "apache2",
  owner: "Example",
});

describe("PROJECT", () => {
  it("round-trips what init writes", () => {
    const project = parseProject(BASE, "PROJECT", "/p");
    expect(project).toMatchObject({
      root: "/p",
      domain: "example.com",
      projectName: "memcached-operator",
      layout: ["tsop.dev/v1"],
      image: "example.com/memcached-operator:0.0.1",
      resources: [],
    });
  });

  it("is found from a subdirectory and fills in default plurals", async () => {
    const text = `${BASE.replace("resources: []\n", "")}resources:\n- group: cache\n  version: v1alpha1\n  kind: Memcached\n  controller: true\n  api: { namespaced: true }\n`;
    const dir = await testdir({ PROJECT: text });
    await mkdir(join(dir, "src/controllers"), { recursive: true });
    const project = await readProject(join(dir, "src/controllers"));
    expect(project.root).toBe(dir);
    expect(project.resources).toEqual([
      {
        group: "cache",
        domain: "example.com",
        version: "v1alpha1",
        kind: "Memcached",
        plural: "memcacheds",
        controller: true,
        api: { crdVersion: "v1", namespaced: true },
      },
    ]);
  });

  it("says where to run when there is no PROJECT", async () => {
    const dir = await testdir({});
    await expect(readProject(dir)).rejects.toThrow(/no PROJECT file in .* or any directory above it/);
  });

  it("lists every invalid field at once", () => {
    const text = "domain: Example_COM\nresources:\n- group: cache\n  version: version1\n  kind: memcached\n";
    expect(() => parseProject(text, "/p/PROJECT", "/p")).toThrow(
      /\/p\/PROJECT is invalid:\n {2}- domain: "Example_COM" is not a DNS-1123 subdomain.*\n {2}- projectName is missing\n {2}- resources\[0\].kind: "memcached" is not PascalCase.*\n {2}- resources\[0\].version: "version1" is not a Kubernetes API version/,
    );
  });

  it("reports YAML syntax errors with a position", () => {
    expect(() => parseProject("domain: [unclosed\n", "PROJECT", "/p")).toThrow(/PROJECT is not valid YAML/);
  });

  it("adds resources keeping comments and keys the user added", () => {
    const edited = `${BASE}# my note about this project\nteam: storage # who owns it\n`;
    const resource = {
      group: "cache",
      domain: "example.com",
      version: "v1alpha1",
      kind: "Memcached",
      plural: "memcacheds",
      controller: true,
      api: { crdVersion: "v1" as const, namespaced: true },
      path: "src/api/v1alpha1/memcached.ts",
    };
    const once = addResourceToProject(edited, "PROJECT", resource);
    const twice = addResourceToProject(once, "PROJECT", { ...resource, kind: "Cluster", plural: "clusters" });
    expect(twice).toContain("# my note about this project\nteam: storage # who owns it\n");
    expect(twice).toContain("# tsop project facts");
    const project = parseProject(twice, "PROJECT", "/p");
    expect(project.resources.map((r) => r.kind)).toEqual(["Memcached", "Cluster"]);
    expect(twice).toContain(
      "resources:\n- api:\n    crdVersion: v1\n    namespaced: true\n  controller: true\n  domain: example.com\n  group: cache\n  kind: Memcached\n",
    );
  });
});
