// Catalog fixtures for the OLM model's tests: a file-based catalog for package "memcached-operator"
// (bundles v0.1.0 and v0.2.0, v0.2.0 replacing v0.1.0) whose bundles carry their manifests as
// olm.bundle.object properties, and helpers to publish it the way tsop's catalogs do (a ConfigMap
// owned by the CatalogSource, gzip in binaryData.extraFBC).
import { gzipSync } from "node:zlib";
import { stringify } from "yaml";
import type { KubeClient } from "../../../src/kube/client.js";
import type { KubeObject } from "../../../src/kube/objects.js";

export const PACKAGE = "memcached-operator";
export const CRD_NAME = "memcacheds.cache.example.com";

export function crd(): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: CRD_NAME },
    spec: {
      group: "cache.example.com",
      names: { kind: "Memcached", plural: "memcacheds", singular: "memcached", listKind: "MemcachedList" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

export function csv(
  version: string,
  options: { image?: string; installModes?: string[]; ownsCrd?: boolean } = {},
): KubeObject {
  const name = `${PACKAGE}.v${version}`;
  const modes = options.installModes ?? [
    "OwnNamespace",
    "SingleNamespace",
    "MultiNamespace",
    "AllNamespaces",
  ];
  return {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: { name },
    spec: {
      displayName: "Memcached Operator",
      version,
      provider: { name: "Example" },
      installModes: ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"].map((type) => ({
        type,
        supported: modes.includes(type),
      })),
      customresourcedefinitions:
        options.ownsCrd === false
          ? {}
          : { owned: [{ name: CRD_NAME, version: "v1alpha1", kind: "Memcached" }] },
      install: {
        strategy: "deployment",
        spec: {
          permissions: [
            {
              serviceAccountName: "memcached-operator",
              rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
            },
          ],
          clusterPermissions: [
            {
              serviceAccountName: "memcached-operator",
              rules: [{ apiGroups: ["cache.example.com"], resources: ["memcacheds"], verbs: ["*"] }],
            },
          ],
          deployments: [
            {
              name: "memcached-operator-controller-manager",
              spec: {
                replicas: 1,
                selector: { matchLabels: { "control-plane": "controller-manager" } },
                template: {
                  metadata: { labels: { "control-plane": "controller-manager" } },
                  spec: {
                    serviceAccountName: "memcached-operator",
                    containers: [
                      {
                        name: "manager",
                        image: options.image ?? `example.com/memcached-operator:v${version}`,
                      },
                    ],
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}

function bundleObject(obj: unknown) {
  return { type: "olm.bundle.object", value: { data: Buffer.from(JSON.stringify(obj)).toString("base64") } };
}

export interface FbcOptions {
  versions?: string[];
  /** Bundle image per version (default example.com/memcached-operator-bundle:v<version>). */
  bundleImage?: (version: string) => string;
  csvOptions?: Parameters<typeof csv>[1];
}

/** FBC YAML: a package, channel "alpha" where each version replaces the previous, and bundles. */
export function fbc(options: FbcOptions = {}): string {
  const versions = options.versions ?? ["0.1.0"];
  const blobs: unknown[] = [{ schema: "olm.package", name: PACKAGE, defaultChannel: "alpha" }];
  blobs.push({
    schema: "olm.channel",
    package: PACKAGE,
    name: "alpha",
    entries: versions.map((v, i) => ({
      name: `${PACKAGE}.v${v}`,
      ...(i > 0 ? { replaces: `${PACKAGE}.v${versions[i - 1]}` } : {}),
    })),
  });
  for (const v of versions) {
    blobs.push({
      schema: "olm.bundle",
      name: `${PACKAGE}.v${v}`,
      package: PACKAGE,
      image: options.bundleImage?.(v) ?? `example.com/memcached-operator-bundle:v${v}`,
      properties: [
        { type: "olm.package", value: { packageName: PACKAGE, version: v } },
        { type: "olm.gvk", value: { group: "cache.example.com", kind: "Memcached", version: "v1alpha1" } },
        bundleObject(csv(v, options.csvOptions)),
        bundleObject(crd()),
      ],
    });
  }
  return blobs.map((b) => `---\n${stringify(b)}`).join("");
}

/** Creates (or updates) catalog `name` in `namespace`: a CatalogSource plus its FBC ConfigMap. */
export async function publishCatalog(
  client: KubeClient,
  namespace: string,
  name: string,
  content: string,
): Promise<KubeObject> {
  const { object: cs } = await client.apply({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "CatalogSource",
    metadata: { name, namespace },
    spec: {
      sourceType: "grpc",
      address: `${name}.${namespace}.svc:50051`,
      displayName: name,
      publisher: "tests",
    },
  });
  await client.apply({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `${name}-configmap-partition-1`,
      namespace,
      annotations: { "olm.contentEncoding": "gzip+base64" },
      ownerReferences: [{ apiVersion: cs.apiVersion, kind: cs.kind, name, uid: cs.metadata.uid ?? "" }],
    },
    binaryData: { extraFBC: gzipSync(content).toString("base64") },
  });
  // A registry Deployment + Service so the address resolves to a ready pod.
  await client.apply({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: `${name}-registry`, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { catalog: name } },
      template: {
        metadata: { labels: { catalog: name } },
        spec: { containers: [{ name: "opm", image: "quay.io/operator-framework/opm:v1.47.0" }] },
      },
    },
  });
  await client.apply({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace },
    spec: { selector: { catalog: name }, ports: [{ name: "grpc", port: 50051, targetPort: 50051 }] },
  });
  return cs;
}
