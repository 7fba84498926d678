import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { CATALOG_INIT_IMAGE } from "../../src/common/pins.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { serializeCatalog, singleBundleCatalog } from "../../src/olm/run/catalog.js";
import { parseInstallMode, resolveInstallMode } from "../../src/olm/run/install-mode.js";
import {
  type PlanInput,
  planObjects,
  planRunBundle,
  planUpgrade,
  upgradeObjects,
} from "../../src/olm/run/plan.js";
import { loadFixture } from "./fixtures.js";

async function input(overrides: Partial<PlanInput> = {}): Promise<PlanInput> {
  const bundle = await loadFixture("0.0.1");
  return {
    bundle,
    content: singleBundleCatalog(bundle),
    installMode: resolveInstallMode(bundle.csv, "demo", undefined),
    namespace: "demo",
    runId: "run1",
    indexImage: "quay.io/operator-framework/opm:v1.47.0",
    initImage: CATALOG_INIT_IMAGE,
    securityContext: "restricted",
    createNamespace: false,
    createOperatorGroup: true,
    ...overrides,
  };
}

/** The Pod Security "restricted" rules that apply to these pods. */
function restrictedViolations(pod: KubeObject): string[] {
  const problems: string[] = [];
  const spec = pod.spec;
  const podSc = spec.securityContext ?? {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- unstructured pod spec
  const containers = [...(spec.initContainers ?? []), ...spec.containers] as Array<Record<string, any>>;
  for (const c of containers) {
    const sc = c.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${c.name}: allowPrivilegeEscalation`);
    if (!(sc.capabilities?.drop ?? []).includes("ALL")) problems.push(`${c.name}: capabilities.drop ALL`);
    if (sc.privileged) problems.push(`${c.name}: privileged`);
    if (!(sc.runAsNonRoot ?? podSc.runAsNonRoot)) problems.push(`${c.name}: runAsNonRoot`);
    if ((sc.runAsUser ?? podSc.runAsUser) === 0) problems.push(`${c.name}: runAsUser 0`);
    const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
    if (!["RuntimeDefault", "Localhost"].includes(seccomp)) problems.push(`${c.name}: seccompProfile`);
  }
  for (const v of spec.volumes ?? []) {
    const kinds = Object.keys(v).filter((k) => k !== "name");
    if (
      kinds.some(
        (k) =>
          !["configMap", "emptyDir", "secret", "projected", "downwardAPI", "persistentVolumeClaim"].includes(
            k,
          ),
      )
    ) {
      problems.push(`volume ${v.name}: ${kinds.join(",")}`);
    }
  }
  return problems;
}

describe("run bundle plan", () => {
  it("lists every object in creation order with tsop's labels", async () => {
    const plan = planRunBundle(await input());
    const objects = planObjects(plan);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "CatalogSource/memcached-operator-catalog",
      `ConfigMap/memcached-operator-catalog-${plan.catalog.revision}-1`,
      `Pod/memcached-operator-catalog-${plan.catalog.revision}`,
      `Service/memcached-operator-catalog-${plan.catalog.revision}`,
      "OperatorGroup/tsop-operatorgroup",
      "Subscription/memcached-operator-sub",
    ]);
    for (const o of objects) {
      expect(o.metadata.labels).toMatchObject({
        "app.kubernetes.io/managed-by": "tsop",
        "tsop.dev/package": "memcached-operator",
        "tsop.dev/run": "run1",
      });
      expect((o.metadata.name ?? "").length).toBeLessThanOrEqual(63);
    }
  });

  it("subscribes with Manual approval at the bundle's CSV in tsop's channel", async () => {
    const plan = planRunBundle(await input());
    expect(plan.subscription.spec).toEqual({
      channel: "tsop-run-bundle",
      name: "memcached-operator",
      source: "memcached-operator-catalog",
      sourceNamespace: "demo",
      installPlanApproval: "Manual",
      startingCSV: "memcached-operator.v0.0.1",
    });
    expect(plan.catalogSource.spec).toEqual({
      sourceType: "grpc",
      address: `memcached-operator-catalog-${plan.catalog.revision}.demo.svc:50051`,
      displayName: "memcached-operator (tsop run bundle)",
      publisher: "tsop",
    });
    expect(JSON.parse(plan.catalogSource.metadata.annotations?.["tsop.dev/bundles"] ?? "")).toEqual([
      { image: "registry.test/memcached-bundle:v0.0.1", csv: "memcached-operator.v0.0.1", version: "0.0.1" },
    ]);
  });

  it("builds a registry pod that passes Pod Security restricted, init container included", async () => {
    const plan = planRunBundle(await input());
    const pod = plan.catalog.pod;
    expect(restrictedViolations(pod)).toEqual([]);
    expect(pod.spec.containers[0].image).toBe("quay.io/operator-framework/opm:v1.47.0");
    expect(pod.spec.containers[0].args).toEqual(["serve", "/configs", "-p", "50051"]);
    expect(pod.spec.containers[0].readinessProbe).toMatchObject({ grpc: { port: 50051 } });
    expect(pod.spec.initContainers[0].image).toBe("quay.io/operator-framework/opm:v1.47.0");
    // OpenShift restricted-v2 rejects a fixed UID outside the namespace's range: none is set.
    expect(JSON.stringify(pod.spec)).not.toMatch(/runAsUser|runAsGroup/);
    expect(pod.spec.volumes[0]).toEqual({
      name: "catalog-part-1",
      configMap: {
        name: plan.catalog.configMaps[0]?.metadata.name,
        items: [{ key: "catalog.yaml.gz", path: "catalog.yaml.gz" }],
      },
    });
    expect(plan.catalog.service.spec.selector).toEqual({
      "tsop.dev/package": "memcached-operator",
      "tsop.dev/component": "registry",
      "tsop.dev/catalog-revision": plan.catalog.revision,
    });
    for (const [k, v] of Object.entries(plan.catalog.service.spec.selector))
      expect(pod.metadata.labels?.[k]).toBe(v);
  });

  it("legacy leaves security contexts unset; pull secret and service account reach the pod and catalog", async () => {
    const plan = planRunBundle(
      await input({ securityContext: "legacy", pullSecretName: "regcred", serviceAccount: "puller" }),
    );
    expect(plan.catalog.pod.spec.securityContext).toBeUndefined();
    expect(plan.catalog.pod.spec.containers[0].securityContext).toBeUndefined();
    expect(restrictedViolations(plan.catalog.pod).length).toBeGreaterThan(0);
    expect(plan.catalog.pod.spec.imagePullSecrets).toEqual([{ name: "regcred" }]);
    expect(plan.catalog.pod.spec.serviceAccountName).toBe("puller");
    expect(plan.catalogSource.spec.secrets).toEqual(["regcred"]);
  });

  it("targets the OperatorGroup per install mode and can create the namespace", async () => {
    const bundle = await loadFixture("0.0.1");
    const own = planRunBundle(
      await input({
        installMode: resolveInstallMode(bundle.csv, "demo", parseInstallMode("OwnNamespace")),
        createNamespace: true,
      }),
    );
    expect(own.operatorGroup?.spec).toEqual({ targetNamespaces: ["demo"] });
    expect(planObjects(own)[0]).toMatchObject({ kind: "Namespace", metadata: { name: "demo" } });
    expect(planRunBundle(await input()).operatorGroup?.spec).toEqual({});
    expect(planRunBundle(await input({ createOperatorGroup: false })).operatorGroup).toBeUndefined();
  });

  it("is deterministic and splits large catalogs into several ConfigMaps", async () => {
    const a = planObjects(planRunBundle(await input()));
    const b = planObjects(planRunBundle(await input()));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    // A limit just above the largest single document forces one ConfigMap per document.
    const docs = serializeCatalog((await input()).content);
    const largest = Math.max(...docs.map((d) => gzipSync(d).length));
    const split = planRunBundle(await input({ payloadLimit: largest + 16 }));
    expect(split.catalog.configMaps.length).toBeGreaterThan(1);
    expect(split.catalog.pod.spec.volumes.filter((v: { configMap?: unknown }) => v.configMap)).toHaveLength(
      split.catalog.configMaps.length,
    );
  });
});

describe("planUpgrade", () => {
  it("serves the old bundles plus the new one from a new registry owned by the live CatalogSource; the switched CatalogSource keeps its own fields and drops the server's", async () => {
    const run = planRunBundle(await input());
    const live: KubeObject = {
      ...run.catalogSource,
      metadata: {
        ...run.catalogSource.metadata,
        uid: "uid-1",
        resourceVersion: "42",
        generation: 1,
        creationTimestamp: "2026-11-25T00:00:00Z",
        managedFields: [{ manager: "tsop" }],
        annotations: { ...run.catalogSource.metadata.annotations, "user/note": "kept" },
      },
      status: { connectionState: { lastObservedState: "READY" } },
    };
    const next = await loadFixture("0.0.2");
    const served = [{ image: "old", csv: run.csvName, version: run.version }];
    const plan = planUpgrade({
      bundle: next,
      catalogSource: live,
      content: singleBundleCatalog(await loadFixture("0.0.1")),
      served,
      installed: run.csvName,
      options: { ...(await input()), runId: "run2" },
    });
    const objects = upgradeObjects(plan);
    expect(objects.map((o) => o.kind)).toEqual(["ConfigMap", "Pod", "Service", "CatalogSource"]);
    for (const o of objects.slice(0, 3))
      expect(o.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: "CatalogSource", name: live.metadata.name, uid: "uid-1" }),
      ]);
    expect(plan.catalog.revision).not.toBe(run.catalog.revision);
    expect(plan.catalogPatch.spec.address).toBe(plan.catalog.address);
    expect(plan.catalogPatch.spec.address).not.toBe(live.spec.address);
    const switched = plan.catalogSource;
    expect(switched.spec.address).toBe(plan.catalog.address);
    expect(switched.status).toBeUndefined();
    for (const field of ["uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"])
      expect(switched.metadata).not.toHaveProperty(field);
    expect(switched.metadata.annotations?.["user/note"]).toBe("kept");
    const bundles = JSON.parse(switched.metadata.annotations?.["tsop.dev/bundles"] ?? "[]") as Array<{
      csv: string;
    }>;
    expect(bundles.map((b) => b.csv)).toEqual([run.csvName, next.csv.metadata.name]);
    // Pure: the live object is left as it was.
    expect(live.metadata.uid).toBe("uid-1");
    expect(live.spec.address).toBe(run.catalog.address);
  });
});
