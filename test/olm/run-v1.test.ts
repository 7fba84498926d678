// The OLM v1 path's pure parts: the plan (objects, the installer's RBAC derived from the bundle,
// the ClusterExtension's spec), the refusals (the olm-v1 suite, cert-manager for webhooks), the
// catalog image (content and determinism), the wait checks and the upgrade's changed objects.
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../src/bundle/load/index.js";
import type { LoadedBundle } from "../../src/bundle/load/types.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { singleBundleCatalog, withUpgrade } from "../../src/olm/run/catalog.js";
import { upgradedV1Objects } from "../../src/olm/run/v1/bundle-upgrade.js";
import {
  buildCatalogImage,
  catalogImageFor,
  catalogJson,
  CONFIGS_LABEL,
} from "../../src/olm/run/v1/catalog-image.js";
import { catalogServingCheck, extensionInstalledCheck } from "../../src/olm/run/v1/checks.js";
import { V1_CLEANUP_STAGES } from "../../src/olm/run/v1/cleanup.js";
import { installerRules, planV1Objects, planV1RunBundle, resourceOf } from "../../src/olm/run/v1/plan.js";
import { refuseForV1, v1Findings } from "../../src/olm/run/v1/refusals.js";
import { fixtureDir, loadFixture } from "../run/fixtures.js";

const IMAGE = "registry.test/memcached-bundle:v0.0.1";
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- unstructured CSV and spec fields
type Loose = any;

async function plan(createNamespace = false) {
  const bundle = await loadFixture("0.0.1", IMAGE);
  return planV1RunBundle({
    bundle,
    namespace: "demo",
    runId: "run1",
    catalogImage: "registry.test/memcached-bundle-catalog@sha256:abc",
    createNamespace,
  });
}

/** The fixture loaded as `bundle validate` loads it, with `edit` applied to its CSV. */
async function loaded(edit: (csv: Loose) => void = () => undefined): Promise<LoadedBundle> {
  const bundle = await loadBundle({ dir: fixtureDir("0.0.1") });
  edit(bundle.csv!.object as Loose);
  return bundle;
}

describe("the v1 plan", () => {
  it("creates the installer's ServiceAccount, ClusterRole and binding, the ClusterCatalog and the ClusterExtension, in that order", async () => {
    const p = await plan();
    expect(planV1Objects(p).map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`)).toEqual(
      [
        "ServiceAccount demo/memcached-operator-installer",
        "ClusterRole /memcached-operator-installer",
        "ClusterRoleBinding /memcached-operator-installer",
        "ClusterCatalog /memcached-operator-catalog",
        "ClusterExtension /memcached-operator",
      ],
    );
    for (const obj of planV1Objects(p))
      expect(obj.metadata.labels).toMatchObject({
        "app.kubernetes.io/managed-by": "tsop",
        "tsop.dev/package": "memcached-operator",
      });
    expect(p.clusterRoleBinding.subjects).toEqual([
      { kind: "ServiceAccount", name: "memcached-operator-installer", namespace: "demo" },
    ]);
  });

  it("adds a labelled Namespace first with --create-namespace", async () => {
    const objects = planV1Objects(await plan(true));
    expect(objects[0]).toMatchObject({ kind: "Namespace", metadata: { name: "demo" } });
    expect(objects[0]!.metadata.labels?.["tsop.dev/package"]).toBe("memcached-operator");
  });

  it("pins the ClusterExtension to the bundle's version, from its own ClusterCatalog only", async () => {
    const p = await plan();
    expect(p.clusterExtension.spec).toEqual({
      namespace: "demo",
      serviceAccount: { name: "memcached-operator-installer" },
      source: {
        sourceType: "Catalog",
        catalog: {
          packageName: "memcached-operator",
          version: "0.0.1",
          selector: {
            matchLabels: { "olm.operatorframework.io/metadata.name": "memcached-operator-catalog" },
          },
        },
      },
    });
    expect(p.clusterCatalog.spec).toEqual({
      source: { type: "Image", image: { ref: "registry.test/memcached-bundle-catalog@sha256:abc" } },
    });
    expect(JSON.parse(p.clusterCatalog.metadata.annotations!["tsop.dev/bundles"]!)).toEqual([
      { image: IMAGE, csv: "memcached-operator.v0.0.1", version: "0.0.1" },
    ]);
  });
});

describe("the installer's RBAC", () => {
  it("manages what the bundle applies, the CRDs by name, and holds every rule the CSV grants", async () => {
    const bundle = await loadFixture("0.0.1", IMAGE);
    const rules = installerRules(bundle, "memcached-operator");
    const manage = ["create", "delete", "get", "list", "patch", "update", "watch"];
    expect(rules).toContainEqual({ apiGroups: ["apps"], resources: ["deployments"], verbs: manage });
    expect(rules).toContainEqual({
      apiGroups: ["rbac.authorization.k8s.io"],
      resources: ["clusterrolebindings", "clusterroles", "rolebindings", "roles"],
      verbs: manage,
    });
    expect(rules).toContainEqual({
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: ["delete", "get", "patch", "update"],
      resourceNames: ["memcacheds.cache.example.com"],
    });
    expect(rules).toContainEqual({
      apiGroups: ["olm.operatorframework.io"],
      resources: ["clusterextensions/finalizers"],
      verbs: ["update"],
      resourceNames: ["memcached-operator"],
    });
    // Every rule of the CSV's permissions and clusterPermissions is held (Kubernetes grants only what one holds).
    const install = (bundle.csv.spec as Loose).install.spec;
    for (const stanza of [...(install.permissions ?? []), ...(install.clusterPermissions ?? [])])
      for (const rule of stanza.rules) expect(rules).toContainEqual(rule);
    // Deterministic: the same bundle gives the same rules.
    expect(installerRules(bundle, "memcached-operator")).toEqual(rules);
  });

  it("holds the rules of bundled ClusterRoles and manages their kind", async () => {
    const bundle = await loadFixture("0.0.1", IMAGE);
    const reader: KubeObject = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "metrics-reader" },
      rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
    } as KubeObject;
    const rules = installerRules({ ...bundle, objects: [...bundle.objects, reader] }, "x");
    expect(rules).toContainEqual({
      apiGroups: [],
      resources: [],
      verbs: ["get"],
      nonResourceURLs: ["/metrics"],
    });
  });

  it("names resources as Kubernetes does", () => {
    expect(
      ["Service", "ConfigMap", "PriorityClass", "NetworkPolicy", "PrometheusRule"].map(resourceOf),
    ).toEqual(["services", "configmaps", "priorityclasses", "networkpolicies", "prometheusrules"]);
  });
});

describe("refusals", () => {
  it("passes the fixture without its required API", async () => {
    const bundle = await loaded((csv) => delete csv.spec.customresourcedefinitions.required);
    expect(v1Findings(bundle, { certManager: false }).errors).toEqual([]);
    expect(() => refuseForV1(IMAGE, v1Findings(bundle, { certManager: false }))).not.toThrow();
  });

  it("refuses a dependency (V1-03) and OwnNamespace/SingleNamespace-only bundles (V1-01), saying what to do", async () => {
    const bundle = await loaded((csv) => {
      csv.spec.installModes = csv.spec.installModes.map((m: { type: string }) => ({
        ...m,
        supported: m.type !== "AllNamespaces",
      }));
    });
    const findings = v1Findings(bundle, { certManager: true });
    expect(findings.errors.map((f) => f.id)).toEqual(["V1-01", "V1-03"]);
    expect(() => refuseForV1(IMAGE, findings)).toThrow(
      /OLM v1 cannot install bundle .* \(nothing was created\)/,
    );
    try {
      refuseForV1(IMAGE, findings);
    } catch (error) {
      expect((error as { hint?: string }).hint).toMatch(/alpha in OLM v1.*--olm v0/);
    }
  });

  it("refuses webhooks when the cluster has no cert-manager, and not when it has", async () => {
    const bundle = await loaded((csv) => {
      delete csv.spec.customresourcedefinitions.required;
      csv.spec.webhookdefinitions = [
        {
          type: "ValidatingAdmissionWebhook",
          generateName: "vmemcached.kb.io",
          deploymentName: "memcached-operator-controller-manager",
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          containerPort: 443,
          targetPort: 9443,
          webhookPath: "/validate",
          rules: [
            {
              apiGroups: ["cache.example.com"],
              apiVersions: ["v1alpha1"],
              operations: ["CREATE"],
              resources: ["memcacheds"],
            },
          ],
        },
      ];
    });
    expect(v1Findings(bundle, { certManager: false }).errors.map((f) => f.id)).toEqual(["V1-CM"]);
    expect(v1Findings(bundle, { certManager: true }).errors).toEqual([]);
  });
});

describe("the catalog image", () => {
  it("holds /configs/<package>/catalog.json without the bundle's manifests, labelled, the same bytes each time", async () => {
    const bundle = await loadFixture("0.0.1", IMAGE);
    const content = singleBundleCatalog(bundle);
    const image = await buildCatalogImage(content);
    expect(JSON.parse(image.config.toString()).config.Labels).toEqual({ [CONFIGS_LABEL]: "/configs" });
    expect(image.files).toEqual([
      "configs/",
      "configs/memcached-operator/",
      "configs/memcached-operator/catalog.json",
    ]);
    const tar = gunzipSync(image.layer).toString("latin1");
    expect(tar).toContain(catalogJson(content));
    const blobs = catalogJson(content)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(blobs.map((b) => b.schema)).toEqual(["olm.package", "olm.channel", "olm.bundle"]);
    expect(blobs[2].image).toBe(IMAGE);
    expect(blobs[2].properties.map((p: { type: string }) => p.type)).not.toContain("olm.bundle.object");
    expect((await buildCatalogImage(content)).manifestDescriptor.digest).toBe(
      image.manifestDescriptor.digest,
    );
  });

  it("goes beside the bundle unless --catalog-image names it", async () => {
    const bundle = await loadFixture("0.0.1", IMAGE);
    expect(catalogImageFor(bundle)).toBe("registry.test/memcached-bundle-catalog:v0.0.1");
    expect(catalogImageFor(bundle, "r.io/c:1")).toBe("r.io/c:1");
    const byDigest = await loadFixture("0.0.1", `registry.test/b@sha256:${"1".repeat(64)}`);
    expect(catalogImageFor(byDigest)).toBe("registry.test/b-catalog:v0.0.1");
  });

  it("chains both bundles for an upgrade, with the skipRange kept", async () => {
    const v2 = await loadFixture("0.0.2", "registry.test/memcached-bundle:v0.0.2");
    const content = withUpgrade(
      singleBundleCatalog(await loadFixture("0.0.1", IMAGE)),
      v2,
      "memcached-operator.v0.0.1",
    );
    const channel = catalogJson(content)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((b) => b.schema === "olm.channel");
    expect(channel.entries).toEqual([
      { name: "memcached-operator.v0.0.1" },
      {
        name: "memcached-operator.v0.0.2",
        replaces: "memcached-operator.v0.0.1",
        skipRange: ">=0.0.1 <0.0.2",
      },
    ]);
  });
});

describe("waits", () => {
  const catalog = (status: unknown) =>
    ({ apiVersion: "v", kind: "ClusterCatalog", metadata: {}, status }) as KubeObject;
  it("a ClusterCatalog is done when Serving the pushed digest, failed when Blocked", () => {
    const check = catalogServingCheck("r/c@sha256:new");
    const serving = (ref: string) =>
      catalog({ conditions: [{ type: "Serving", status: "True" }], resolvedSource: { image: { ref } } });
    expect(check(serving("r/c@sha256:new")).done).toBe(true);
    expect(check(serving("r/c@sha256:old"))).toMatchObject({ done: false });
    expect(
      check(
        catalog({
          conditions: [{ type: "Progressing", status: "False", reason: "Blocked", message: "bad ref" }],
        }),
      ),
    ).toMatchObject({ failed: "catalogd cannot serve the catalog: bad ref" });
  });

  it("a ClusterExtension is done when the pinned version is Installed; Retrying shows operator-controller's message", () => {
    const check = extensionInstalledCheck("0.0.2");
    const ext = (status: unknown) =>
      ({ apiVersion: "v", kind: "ClusterExtension", metadata: {}, status }) as KubeObject;
    const installed = (version: string) =>
      ext({
        conditions: [{ type: "Installed", status: "True" }],
        install: { bundle: { name: "p.v", version } },
      });
    expect(check(installed("0.0.2")).done).toBe(true);
    expect(check(installed("0.0.1")).done).toBe(false);
    const retrying = check(
      ext({
        conditions: [
          { type: "Progressing", status: "True", reason: "Retrying", message: "no bundles found" },
        ],
      }),
    );
    expect(retrying).toEqual({ done: false, status: "Retrying: no bundles found" });
  });
});

describe("upgrade and cleanup", () => {
  it("moves only the catalog's image and annotation and the extension's version", async () => {
    const p = await plan();
    const served = [
      { image: "a", csv: "a.v1", version: "1" },
      { image: "b", csv: "b.v2", version: "2" },
    ];
    const { catalog, extension } = upgradedV1Objects(
      p.clusterCatalog,
      p.clusterExtension,
      "r/c@sha256:2",
      served,
      "0.0.2",
    );
    expect(catalog.spec).toEqual({ source: { type: "Image", image: { ref: "r/c@sha256:2" } } });
    expect(JSON.parse(catalog.metadata.annotations!["tsop.dev/bundles"]!)).toEqual(served);
    expect((extension.spec as Loose).source.catalog).toEqual({
      ...(p.clusterExtension.spec as Loose).source.catalog,
      version: "0.0.2",
    });
    expect((p.clusterExtension.spec as Loose).source.catalog.version).toBe("0.0.1");
  });

  it("deletes the ClusterExtension before the RBAC its finalizers need, the namespace last", () => {
    expect(V1_CLEANUP_STAGES.map((stage) => stage.map((k) => k.kind))).toEqual([
      ["ClusterExtension"],
      ["ClusterCatalog"],
      ["ClusterRoleBinding", "ClusterRole", "ServiceAccount"],
      ["Namespace"],
    ]);
  });
});
