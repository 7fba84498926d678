// Round trip of `tsop generate types`: types generated from tsop's own memcached CRD (what `tsop
// generate` writes for fixtures/codegen/memcached) compile against the objects tsop's tests use and
// against the fixture's own TypeScript API types, both ways; types from controller-tools' CronJob
// test CRD (three versions, an embedded batch/v1 JobTemplateSpec) compile, typed accesses compile
// and wrong ones fail. One strict program checks it all.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateTypes } from "../../src/codegen/types-from-crd/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { REPO_ROOT } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { typecheck } from "./crd-types-support.js";

const MEMCACHED_CRD = join(
  REPO_ROOT,
  "fixtures/codegen/memcached/expected/crd/cache.example.com_memcacheds.yaml",
);
const MEMCACHED_API = join(REPO_ROOT, "fixtures/codegen/memcached/api/v1alpha1/memcached.ts");
const CRONJOB_CRD = join(
  REPO_ROOT,
  "fixtures/crd-types/controller-tools/testdata.kubebuilder.io_cronjobs.yaml",
);

/** Uses of the memcached types: the objects of test/runtime/memcached.e2e.test.ts, typed. */
const MEMCACHED_USE = `
import type { Client, KubeObjectLike } from "tsop";
import { V1alpha1Memcached, type V1alpha1MemcachedSpec, type V1alpha1MemcachedStatus } from "./types/memcacheds.cache.example.com.js";
import type { MemcachedSpec, MemcachedStatus } from "./api/memcached.js";

// The object test/runtime/memcached.e2e.test.ts creates.
export const created: V1alpha1Memcached = {
  apiVersion: "cache.example.com/v1alpha1",
  kind: "Memcached",
  metadata: { name: "cache", namespace: "default" },
  spec: { size: 3 },
};
export const status: V1alpha1MemcachedStatus = {
  conditions: [{ type: "Available", status: "True", reason: "Ready", message: "3/3 replicas available", lastTransitionTime: "2024-01-01T00:00:00Z", observedGeneration: 1 }],
};
// The generated types and the fixture's own API types describe the same objects, both ways.
export const specFromApi = (s: MemcachedSpec): V1alpha1MemcachedSpec => s;
export const specToApi = (s: V1alpha1MemcachedSpec): MemcachedSpec => s;
export const statusFromApi = (s: MemcachedStatus): V1alpha1MemcachedStatus => s;
export const statusToApi = (s: V1alpha1MemcachedStatus): MemcachedStatus => s;
// The object type is a runtime object, and the KindRef gives typed reads.
export const asRuntimeObject = (m: V1alpha1Memcached): KubeObjectLike => m;
export async function size(client: Client): Promise<number | undefined> {
  const mc = await client.get(V1alpha1Memcached, { namespace: "default", name: "cache" });
  const available = mc?.status?.conditions?.find((c) => c.type === "Available")?.status;
  const ok: "True" | "False" | "Unknown" | undefined = available;
  void ok;
  // @ts-expect-error: size is a number
  const wrong: string | undefined = mc?.spec?.size;
  void wrong;
  return (await client.list(V1alpha1Memcached))[0]?.spec?.size;
}
`;

/** Typed accesses into the CronJob types, and wrong ones that must fail. */
const CRONJOB_USE = `
import type { Client, Manager, Reconciler } from "tsop";
import { V1CronJob, V1beta2CronJob, type V1CronJobSpec } from "./types/cronjobs.testdata.kubebuilder.io.js";

export async function read(client: Client) {
  const job = await client.get(V1CronJob, { namespace: "ns", name: "j" });
  const schedule: string | undefined = job?.spec?.schedule;
  const containers = job?.spec?.jobTemplate.spec?.template.spec?.containers ?? [];
  const image: string | undefined = containers[0]?.image;
  const limit = containers[0]?.resources?.limits?.["cpu"];
  const port = containers[0]?.livenessProbe?.httpGet?.port;
  const quantity: number | string | undefined = limit;
  const portValue: number | string | undefined = port;
  // @ts-expect-error: schedule is a string
  const wrong: number | undefined = job?.spec?.schedule;
  // @ts-expect-error: no such field
  job?.spec?.noSuchField;
  const older = await client.list(V1beta2CronJob);
  return [schedule, image, quantity, portValue, wrong, older.length];
}

export function wire(manager: Manager, reconcile: Reconciler) {
  return manager.controller(V1CronJob).owns(V1beta2CronJob).complete(reconcile);
}

export const spec = (s: V1CronJobSpec) => s.concurrencyPolicy;
`;

describe("generate types round trip", { timeout: 120_000 }, () => {
  it("types from tsop's memcached CRD and controller-tools' CronJob CRD compile with the objects that use them", async () => {
    const dir = await testdir({
      "package.json": '{ "type": "module" }',
      "api/memcached.ts": readFileSync(MEMCACHED_API, "utf8"),
      "memcached-use.ts": MEMCACHED_USE,
      "cronjob-use.ts": CRONJOB_USE,
    });
    const { files } = await generateTypes(
      { cwd: dir, fromCrd: [MEMCACHED_CRD, CRONJOB_CRD], out: "types" },
      new MemoryReporter(),
    );
    expect(files.map((f) => f.path)).toEqual([
      "types/cronjobs.testdata.kubebuilder.io.ts",
      "types/memcacheds.cache.example.com.ts",
    ]);
    const generated = readFileSync(join(dir, "types/cronjobs.testdata.kubebuilder.io.ts"), "utf8");
    // v1beta1 is not served: no types for it.
    expect(generated).toContain("// Served versions: v1, v1beta2.");
    expect(generated).not.toContain("V1beta1CronJob");
    expect(
      typecheck([join(dir, "memcached-use.ts"), join(dir, "cronjob-use.ts")], {
        experimentalDecorators: false,
      }),
    ).toBe("");
  });
});
