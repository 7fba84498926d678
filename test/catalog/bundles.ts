// Small but complete bundles for catalog tests, one per version of a package, built as directories
// and pushed with `tsop bundle push` to a registry on 127.0.0.1: a CSV (install modes, replaces,
// skips, olm.skipRange, minKubeVersion, a deployment with one image) and one CRD per served version.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { runTsop } from "../support/cli.js";
import type { TestRegistry } from "../support/registry.js";

export interface BundleSpec {
  pkg?: string;
  version: string;
  channels?: string[];
  defaultChannel?: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
  installModes?: string[];
  minKubeVersion?: string;
  /** Served CRD versions of widgets.example.com (default ["v1"]). */
  crdVersions?: string[];
  /** spec.relatedImages of the CSV. */
  relatedImages?: Array<{ name: string; image: string }>;
  /** The operator image (default: 127.0.0.1:5000/widget-operator:v<version>). */
  operatorImage?: string;
}

export const PKG = "widget-operator";
const MODES = ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"];

export function csvName(version: string, pkg = PKG): string {
  return `${pkg}.v${version}`;
}

export async function writeBundleDir(dir: string, spec: BundleSpec): Promise<string> {
  const pkg = spec.pkg ?? PKG;
  const modes = spec.installModes ?? MODES;
  const versions = spec.crdVersions ?? ["v1"];
  await mkdir(join(dir, "manifests"), { recursive: true });
  await mkdir(join(dir, "metadata"), { recursive: true });
  const csv = {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: {
      name: csvName(spec.version, pkg),
      annotations: {
        capabilities: "Basic Install",
        ...(spec.skipRange ? { "olm.skipRange": spec.skipRange } : {}),
      },
    },
    spec: {
      displayName: "Widget Operator",
      description: "Manages widgets.",
      version: spec.version,
      ...(spec.replaces ? { replaces: spec.replaces } : {}),
      ...(spec.skips ? { skips: spec.skips } : {}),
      ...(spec.minKubeVersion ? { minKubeVersion: spec.minKubeVersion } : {}),
      maturity: "alpha",
      provider: { name: "Example" },
      maintainers: [{ name: "Example", email: "ops@example.com" }],
      links: [{ name: "Source", url: "https://example.com/widget-operator" }],
      keywords: ["widgets"],
      ...(spec.relatedImages ? { relatedImages: spec.relatedImages } : {}),
      installModes: MODES.map((type) => ({ type, supported: modes.includes(type) })),
      customresourcedefinitions: {
        owned: versions.map((v) => ({
          name: "widgets.example.com",
          version: v,
          kind: "Widget",
          displayName: "Widget",
          description: "A widget.",
        })),
      },
      install: {
        strategy: "deployment",
        spec: {
          clusterPermissions: [
            {
              serviceAccountName: "widget-operator",
              rules: [
                { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
              ],
            },
          ],
          deployments: [
            {
              name: "widget-operator",
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: "widget-operator" } },
                template: {
                  metadata: { labels: { app: "widget-operator" } },
                  spec: {
                    serviceAccountName: "widget-operator",
                    containers: [
                      {
                        name: "manager",
                        image: spec.operatorImage ?? `127.0.0.1:5000/widget-operator:v${spec.version}`,
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
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
      scope: "Namespaced",
      versions: versions.map((v, i) => ({
        name: v,
        served: true,
        storage: i === versions.length - 1,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      })),
    },
  };
  const channels = spec.channels ?? ["alpha"];
  const annotations = {
    annotations: {
      "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
      "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
      "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
      "operators.operatorframework.io.bundle.package.v1": pkg,
      "operators.operatorframework.io.bundle.channels.v1": channels.join(","),
      ...(spec.defaultChannel
        ? { "operators.operatorframework.io.bundle.channel.default.v1": spec.defaultChannel }
        : {}),
    },
  };
  await writeFile(join(dir, "manifests", `${pkg}.clusterserviceversion.yaml`), stringify(csv));
  await writeFile(join(dir, "manifests", "example.com_widgets.yaml"), stringify(crd));
  await writeFile(join(dir, "metadata", "annotations.yaml"), stringify(annotations));
  return dir;
}

/** Builds the bundle and pushes it as <registry>/<repo>:v<version>; returns the reference. */
export async function pushBundle(
  registry: TestRegistry,
  spec: BundleSpec,
  repo = `${spec.pkg ?? PKG}-bundle`,
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "tsop-catalog-bundle-"));
  const dir = await writeBundleDir(join(root, "bundle"), spec);
  const image = `${registry.host}/${repo}:v${spec.version}`;
  const push = await runTsop(["bundle", "push", image, "--dir", dir, `--plain-http=${registry.host}`]);
  await rm(root, { recursive: true, force: true });
  if (push.exitCode !== 0) throw new Error(`tsop bundle push ${image} failed:\n${push.stderr}`);
  return image;
}
