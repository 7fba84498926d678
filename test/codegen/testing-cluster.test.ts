// Every CRD tsop generates (the golden outputs) is accepted by tsop/testing's API server, which
// validates CRD structure and serves the kind; sample objects are accepted or rejected there as the
// schema says (types, bounds, enums, patterns, required fields, defaults, int-or-string, pruning).
import { readdirSync, readFileSync } from "node:fs";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generate } from "../../src/codegen/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { REPO_ROOT } from "../support/cli.js";
import { http } from "../testing/helpers.js";
import { testdir } from "../support/testdir.js";
import { tsconfig } from "./support.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/codegen/", import.meta.url));

function generatedCrds(): Array<{ file: string; crd: Record<string, unknown> }> {
  const out: Array<{ file: string; crd: Record<string, unknown> }> = [];
  for (const name of readdirSync(FIXTURES)) {
    let files: string[] = [];
    try {
      files = readdirSync(join(FIXTURES, name, "expected", "crd"));
    } catch {
      continue;
    }
    for (const f of files)
      out.push({
        file: `${name}/${f}`,
        crd: parse(readFileSync(join(FIXTURES, name, "expected", "crd", f), "utf8")),
      });
  }
  return out;
}

let cluster: TestCluster;

async function api(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await http(cluster, method, path, body);
  return { status: res.status, body: res.body as Record<string, unknown> };
}

const create = (group: string, version: string, plural: string, obj: Record<string, unknown>) =>
  api("POST", `/apis/${group}/${version}/namespaces/default/${plural}`, obj);

describe("generated CRDs on tsop/testing", () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const crds = generatedCrds();
  it("covers every golden CRD", () => {
    expect(crds.length).toBeGreaterThanOrEqual(10);
  });

  for (const { file, crd } of crds) {
    it(`accepts ${file}`, async () => {
      const res = await api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    });
  }

  it("memcached: bounds and int32 types", async () => {
    const g = "cache.example.com";
    const ok = await create(g, "v1alpha1", "memcacheds", {
      apiVersion: `${g}/v1alpha1`,
      kind: "Memcached",
      metadata: { name: "ok" },
      spec: { size: 2, containerPort: 11211 },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const tooBig = await create(g, "v1alpha1", "memcacheds", {
      apiVersion: `${g}/v1alpha1`,
      kind: "Memcached",
      metadata: { name: "big" },
      spec: { size: 5 },
    });
    expect(tooBig.status).toBe(422);
    expect(JSON.stringify(tooBig.body)).toContain("spec.size");
    const wrongType = await create(g, "v1alpha1", "memcacheds", {
      apiVersion: `${g}/v1alpha1`,
      kind: "Memcached",
      metadata: { name: "str" },
      spec: { size: "two" },
    });
    expect(wrongType.status).toBe(422);
  });

  it("cronjob v1: required fields, defaults, enums, alias item patterns, int-or-string, pruning", async () => {
    const g = "testdata.tsop.dev";
    const base = { apiVersion: `${g}/v1`, kind: "CronJob" };
    const spec = { schedule: "*/1 * * * *", jobTemplate: { images: ["busybox"] }, explicitlyRequired: "yes" };
    const ok = await create(g, "v1", "cronjobs", {
      ...base,
      metadata: { name: "ok" },
      spec: {
        ...spec,
        hosts: ["a.example.com"],
        intOrStringWithAPattern: "50%",
        memory: "1Gi",
        unknownField: 1,
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const stored = ok.body.spec as Record<string, unknown>;
    expect(stored.concurrencyPolicy).toBe("Allow"); // @default
    expect(stored.defaultedSlice).toEqual(["a", "b"]);
    expect(stored).not.toHaveProperty("unknownField"); // pruned
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["missing schedule", { jobTemplate: { images: [] }, explicitlyRequired: "x" }, "spec.schedule"],
      ["enum", { ...spec, concurrencyPolicy: "Sometimes" }, "spec.concurrencyPolicy"],
      ["alias item pattern", { ...spec, hosts: ["Not A Host"] }, "spec.hosts[0]"],
      [
        "class property decorator",
        { ...spec, jobTemplate: { images: [], parallelism: 0 } },
        "spec.jobTemplate.parallelism",
      ],
      [
        "maxItems from a decorator",
        { ...spec, jobTemplate: { images: ["a", "b", "c", "d"] } },
        "spec.jobTemplate.images",
      ],
      ["int-or-string pattern", { ...spec, intOrStringWithAPattern: "abc" }, "spec.intOrStringWithAPattern"],
      ["exclusive maximum", { ...spec, exclusiveBounds: 10 }, "spec.exclusiveBounds"],
    ];
    for (const [i, [what, s, field]] of cases.entries()) {
      const res = await create(g, "v1", "cronjobs", { ...base, metadata: { name: `bad-${i}` }, spec: s });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(JSON.stringify(res.body), what).toContain(field);
    }
    // v1beta1 is not served; v1beta2 is served (deprecated).
    const unserved = await create(g, "v1beta1", "cronjobs", {
      apiVersion: `${g}/v1beta1`,
      kind: "CronJob",
      metadata: { name: "old" },
      spec: { schedule: "x" },
    });
    expect(unserved.status).toBe(404);
  });

  it("hazards: patterns are evaluated by RE2's rules (POSIX classes, \\pL, inline flags, \\Q…\\E)", async () => {
    const g = "hazards.tsop.dev";
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ["URL with a POSIX class", { homepage: "https://example.com/a" }, true],
      ["URL with a space", { homepage: "https://example.com/a b" }, false],
      ["letters of any script", { word: "Ωμέγα" }, true],
      ["a digit is not a letter", { word: "a1" }, false],
      ["(?i) matches upper case", { branch: "RELEASE-Next" }, true],
      ["(?i) still anchors", { branch: "hotfix-1" }, false],
      ["\\Q…\\E is literal", { literal: "1.0]" }, true],
      ["\\Q…\\E does not treat . as any", { literal: "1x0" }, false],
    ];
    for (const [i, [what, spec, valid]] of cases.entries()) {
      const res = await create(g, "v1", "switches", {
        apiVersion: `${g}/v1`,
        kind: "Switch",
        metadata: { name: `s${i}` },
        spec,
      });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(valid ? 201 : 422);
    }
  });

  it("enums and plural names are served as generated", async () => {
    const ok = await create("testdata.tsop.dev", "v1", "enums", {
      apiVersion: "testdata.tsop.dev/v1",
      kind: "Enum",
      metadata: { name: "e" },
      spec: { color: "red", level: 10, replicas: 3 },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const bad = await create("testdata.tsop.dev", "v1", "enums", {
      apiVersion: "testdata.tsop.dev/v1",
      kind: "Enum",
      metadata: { name: "f" },
      spec: { level: 2 },
    });
    expect(bad.status).toBe(422);
    const people = await create("plural.tsop.dev", "v1", "people", {
      apiVersion: "plural.tsop.dev/v1",
      kind: "Person",
      metadata: { name: "p" },
    });
    expect(people.status, JSON.stringify(people.body)).toBe(201);
    const mice = await api("POST", "/apis/plural.tsop.dev/v1/mice", {
      apiVersion: "plural.tsop.dev/v1",
      kind: "Mouse",
      metadata: { name: "m" },
    });
    expect(mice.status, JSON.stringify(mice.body)).toBe(201); // cluster-scoped
  });

  it(
    "core types from @kubernetes/client-node (a pod template) are walked from their .d.ts and served",
    {
      timeout: 120_000,
    },
    async () => {
      const dir = await testdir({
        "tsconfig.json": tsconfig(),
        "api/types.ts": [
          'import { CustomResource, KubeObject } from "tsop";',
          'import type { V1PodTemplateSpec } from "@kubernetes/client-node";',
          "export interface RunnerSpec {",
          "  /** The pod to run. */",
          "  template: V1PodTemplateSpec;",
          "}",
          '@CustomResource({ group: "runners.tsop.dev", version: "v1" })',
          "export class Runner extends KubeObject<RunnerSpec> {}",
          "",
        ].join("\n"),
      });
      await symlink(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
      const result = await generate({ cwd: dir, what: "crds", maxDescLen: 0 }, new MemoryReporter());
      expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const crd = parse(readFileSync(join(dir, "config/crd/bases/runners.tsop.dev_runners.yaml"), "utf8"));
      const installed = await api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
      expect(installed.status, JSON.stringify(installed.body)).toBe(201);
      const pod = {
        metadata: { labels: { app: "r" } },
        spec: { containers: [{ name: "c", image: "busybox", ports: [{ containerPort: 80 }] }] },
      };
      const ok = await create("runners.tsop.dev", "v1", "runners", {
        apiVersion: "runners.tsop.dev/v1",
        kind: "Runner",
        metadata: { name: "r" },
        spec: { template: pod },
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      const badPort = {
        spec: { containers: [{ name: "c", image: "busybox", ports: [{ containerPort: "eighty" }] }] },
      };
      const bad = await create("runners.tsop.dev", "v1", "runners", {
        apiVersion: "runners.tsop.dev/v1",
        kind: "Runner",
        metadata: { name: "s" },
        spec: { template: badPort },
      });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.body)).toContain("containerPort");
    },
  );
});
