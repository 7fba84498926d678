// A second package for dependency resolution on the real test bed: cert-provider, whose CSV owns
// certificates.cert.example.com (the API fixtures/run's CSV requires), pushed as a bundle image,
// and a catalog serving it that a user would already have in the cluster: the FBC rendered by the
// real `opm render` from that image, in a ConfigMap served by `opm serve` in a pod, a Service and a
// grpc CatalogSource (written here, not by tsop).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { stringify } from "yaml";
import { OPM_IMAGE } from "../../src/common/pins.js";
import { runTsop } from "../support/cli.js";
import type { TestRegistry } from "../support/registry.js";
import { rigBinary } from "../support/rig.js";

export const PROVIDER_PACKAGE = "cert-provider";
export const PROVIDER_CSV = "cert-provider.v0.1.0";

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "certificates.cert.example.com" },
  spec: {
    group: "cert.example.com",
    names: {
      kind: "Certificate",
      listKind: "CertificateList",
      plural: "certificates",
      singular: "certificate",
    },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

const CSV = {
  apiVersion: "operators.coreos.com/v1alpha1",
  kind: "ClusterServiceVersion",
  metadata: { name: PROVIDER_CSV, annotations: { capabilities: "Basic Install" } },
  spec: {
    displayName: "Cert Provider",
    description: "Provides certificates.",
    version: "0.1.0",
    provider: { name: "Example" },
    maturity: "alpha",
    installModes: ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"].map((type) => ({
      type,
      supported: true,
    })),
    customresourcedefinitions: {
      owned: [
        {
          name: "certificates.cert.example.com",
          kind: "Certificate",
          version: "v1",
          displayName: "Certificate",
        },
      ],
    },
    install: {
      strategy: "deployment",
      spec: {
        deployments: [
          {
            name: "cert-provider",
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: "cert-provider" } },
              template: {
                metadata: { labels: { app: "cert-provider" } },
                spec: {
                  containers: [{ name: "manager", image: "registry.example.com/cert-provider:v0.1.0" }],
                },
              },
            },
          },
        ],
      },
    },
  },
};

const ANNOTATIONS = {
  annotations: {
    "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
    "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
    "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
    "operators.operatorframework.io.bundle.package.v1": PROVIDER_PACKAGE,
    "operators.operatorframework.io.bundle.channels.v1": "stable",
    "operators.operatorframework.io.bundle.channel.default.v1": "stable",
  },
};

/** The provider's bundle, pushed with `tsop bundle push` as <registry>/cert-provider-bundle:v0.1.0. */
export async function pushProviderBundle(registry: TestRegistry): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-provider-"));
  await mkdir(join(dir, "manifests"));
  await mkdir(join(dir, "metadata"));
  await writeFile(join(dir, "manifests", "certificates.yaml"), stringify(CRD));
  await writeFile(join(dir, "manifests", "cert-provider.clusterserviceversion.yaml"), stringify(CSV));
  await writeFile(join(dir, "metadata", "annotations.yaml"), stringify(ANNOTATIONS));
  const image = `${registry.host}/cert-provider-bundle:v0.1.0`;
  const pushed = await runTsop(["bundle", "push", image, "--dir", dir, "--plain-http"]);
  await rm(dir, { recursive: true, force: true });
  if (pushed.exitCode !== 0) throw new Error(`tsop bundle push ${image} failed:\n${pushed.stderr}`);
  return image;
}

/** The objects of a catalog serving `image`'s bundle in channel stable (FBC from the real opm). */
export async function providerCatalog(image: string, namespace: string): Promise<object[]> {
  const rendered = await execa(rigBinary("opm"), ["render", image, "--use-http", "-o", "json"]);
  const fbc = [
    JSON.stringify({ schema: "olm.package", name: PROVIDER_PACKAGE, defaultChannel: "stable" }),
    JSON.stringify({
      schema: "olm.channel",
      name: "stable",
      package: PROVIDER_PACKAGE,
      entries: [{ name: PROVIDER_CSV }],
    }),
    rendered.stdout,
  ].join("\n");
  const name = "cert-catalog";
  const labels = { app: name };
  return [
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { "catalog.json": fbc } },
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace, labels },
      spec: {
        containers: [
          {
            name: "registry",
            image: OPM_IMAGE,
            command: ["/bin/opm"],
            args: ["serve", "/configs", "-p", "50051"],
            ports: [{ name: "grpc", containerPort: 50051 }],
            volumeMounts: [
              { name: "fbc", mountPath: `/configs/${PROVIDER_PACKAGE}` },
              { name: "tmp", mountPath: "/tmp" },
            ],
          },
        ],
        volumes: [
          { name: "fbc", configMap: { name } },
          { name: "tmp", emptyDir: {} },
        ],
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace },
      spec: { selector: labels, ports: [{ name: "grpc", port: 50051, targetPort: 50051 }] },
    },
    {
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "CatalogSource",
      metadata: { name, namespace },
      spec: { sourceType: "grpc", address: `${name}.${namespace}.svc:50051`, displayName: "Certificates" },
    },
  ];
}
