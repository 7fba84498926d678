// The broken-bundle corpus: each case breaks the valid memcached bundle in one way, for one check
// id. validate-corpus.test.ts holds tsop to each case's message, file and path;
// validate-oracle.real.test.ts compares tsop's verdict on each with operator-sdk's.
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { testdir } from "../support/testdir.js";
import { MEMCACHED_EXPECTED } from "./helpers.js";

export const CSV = "manifests/memcached-operator.clusterserviceversion.yaml";
const CRD = "manifests/cache.example.com_memcacheds.yaml";
const ANN = "metadata/annotations.yaml";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test mutations poke anywhere in the YAML
type Doc = Record<string, any>;
export interface Case {
  id: string;
  what: string;
  /** Changes the bundle in dir. */
  breakIt: (b: Bundle) => Promise<void>;
  message: string | RegExp;
  level?: "error" | "warning";
  file?: string;
  path?: string;
  optional?: string[];
  k8sVersion?: string;
}

export class Bundle {
  constructor(readonly dir: string) {}
  async edit(file: string, fn: (doc: Doc) => void): Promise<void> {
    const doc = parse(await readFile(join(this.dir, file), "utf8")) as Doc;
    fn(doc);
    await writeFile(join(this.dir, file), stringify(doc));
  }
  csv(fn: (csv: Doc) => void) {
    return this.edit(CSV, fn);
  }
  ann(fn: (a: Doc) => void) {
    return this.edit(ANN, (d) => fn(d.annotations));
  }
  write(file: string, text: string) {
    return writeFile(join(this.dir, file), text);
  }
  remove(file: string) {
    return rm(join(this.dir, file), { recursive: true, force: true });
  }
}

const ownedCrd = (csv: Doc) => csv.spec.customresourcedefinitions.owned[0];
const container = (csv: Doc) => csv.spec.install.spec.deployments[0].spec.template.spec.containers[0];
const K = "operators.operatorframework.io.bundle";

export const CASES: Case[] = [
  {
    id: "FMT-01",
    what: "no manifests dir",
    breakIt: (b) => b.remove("manifests"),
    message: "Unable to locate manifests directory",
    file: "manifests/",
  },
  {
    id: "FMT-02",
    what: "no metadata dir",
    breakIt: (b) => b.remove("metadata"),
    message: "Unable to locate metadata directory",
    file: "metadata/",
  },
  {
    id: "FMT-03",
    what: "empty manifests dir",
    breakIt: async (b) => {
      await b.remove("manifests");
      await mkdir(join(b.dir, "manifests"));
    },
    message: "The directory manifests/ contains no yaml files",
  },
  {
    id: "FMT-04",
    what: "annotations.yaml without annotations",
    breakIt: (b) => b.write(ANN, "labels: {}\n"),
    message: "Could not find annotations file",
  },
  {
    id: "FMT-05",
    what: "missing package annotation",
    breakIt: (b) => b.ann((a) => delete a[`${K}.package.v1`]),
    message: `Missing annotation "${K}.package.v1"`,
    file: ANN,
    path: `annotations.${K}.package.v1`,
  },
  {
    id: "FMT-06",
    what: "wrong media type",
    breakIt: (b) => b.ann((a) => (a[`${K}.mediatype.v1`] = "plain")),
    message: `Expecting annotation "${K}.mediatype.v1" to have value "registry+v1" instead of "plain"`,
    file: ANN,
  },
  {
    id: "FMT-07",
    what: "empty channels",
    breakIt: (b) => b.ann((a) => (a[`${K}.channels.v1`] = "")),
    message: `Expecting annotation "${K}.channels.v1" to have non-empty value`,
  },
  {
    id: "FMT-08",
    what: "bad dependencies",
    breakIt: (b) =>
      b.write(
        "metadata/dependencies.yaml",
        "dependencies:\n- type: olm.package\n  value: {packageName: etcd, version: 'not a range'}\n- type: olm.gvk\n  value: {version: v1, kind: X}\n",
      ),
    message: "Invalid semver format version: not a range",
    file: "metadata/dependencies.yaml",
    path: "dependencies[0]",
  },
  {
    id: "FMT-09",
    what: "manifests annotation points elsewhere",
    breakIt: (b) => b.ann((a) => (a[`${K}.manifests.v1`] = "other/")),
    message: `Expecting annotation "${K}.manifests.v1" to have value "manifests/" instead of "other/"`,
  },
  {
    id: "LOAD-01",
    what: "unparsable manifest",
    breakIt: (b) => b.write("manifests/broken.yaml", "a: [unclosed\n"),
    message: /^cannot parse YAML/,
    file: "manifests/broken.yaml",
  },
  {
    id: "LOAD-02",
    what: "two CSVs",
    breakIt: async (b) => cp(join(b.dir, CSV), join(b.dir, "manifests/zz-stale.clusterserviceversion.yaml")),
    message: /^invalid bundle: contains multiple CSVs/,
  },
  {
    id: "LOAD-03",
    what: "manifests annotation leaving the bundle",
    breakIt: (b) => b.ann((a) => (a[`${K}.manifests.v1`] = "manifests/../../../etc/")),
    message:
      '"manifests/../../../etc/" holds "." or ".." (it must stay inside the bundle); tsop reads manifests/ instead',
    file: "metadata/annotations.yaml",
    path: `annotations.${K}.manifests.v1`,
  },
  {
    id: "LOAD-04",
    what: "two objects in one manifest file",
    breakIt: (b) =>
      b.write(
        "manifests/two.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
      ),
    message:
      "holds 2 YAML documents; OLM's registry reads only the first of each file, put one object per file",
    file: "manifests/two.yaml",
    level: "warning",
  },
  {
    id: "CNT-01",
    what: "a Deployment object",
    breakIt: (b) =>
      b.write("manifests/d.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"),
    message: "unsupported media type registry+v1 for bundle object: apps/v1, Kind=Deployment",
    file: "manifests/d.yaml",
    path: "kind",
  },
  {
    id: "CNT-02",
    what: "namespaced object with a namespace",
    breakIt: (b) =>
      b.edit(
        "manifests/memcached-operator-webhook-service_v1_service.yaml",
        (d) => (d.metadata.namespace = "x"),
      ),
    message: /metadata.namespace: Forbidden: not allowed on this type/,
    path: "metadata.namespace",
  },
  {
    id: "CNT-03",
    what: "no CSV",
    breakIt: (b) => b.remove(CSV),
    message: "no ClusterServiceVersion in bundle",
  },
  {
    id: "CSV-01",
    what: "bad CSV name",
    breakIt: (b) => b.csv((c) => (c.metadata.name = "Memcached_Operator")),
    message: /^metadata.name "Memcached_Operator" is invalid/,
    file: CSV,
    path: "metadata.name",
  },
  {
    id: "CSV-02",
    what: "bad replaces",
    breakIt: (b) => b.csv((c) => (c.spec.replaces = "x".repeat(70))),
    message: /^spec.replaces "x+" is invalid: must be no more than 63 characters/,
    path: "spec.replaces",
  },
  {
    id: "CSV-03",
    what: "no annotations",
    breakIt: (b) => b.csv((c) => delete c.metadata.annotations),
    message: "annotations not found",
    level: "warning",
  },
  {
    id: "CSV-04",
    what: "no examples",
    breakIt: (b) => b.csv((c) => delete c.metadata.annotations["alm-examples"]),
    message: "example annotations not found",
    level: "warning",
    path: "metadata.annotations.alm-examples",
  },
  {
    id: "CSV-05",
    what: "examples not JSON",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["alm-examples"] = "[{")),
    message: /^invalid example: /,
    path: "metadata.annotations.alm-examples",
  },
  {
    id: "CSV-06",
    what: "owned CRD name without group",
    breakIt: (b) => b.csv((c) => (ownedCrd(c).name = "memcacheds")),
    message: "couldn't parse plural.group from crd name: memcacheds",
    path: "spec.customresourcedefinitions.owned[0].name",
  },
  {
    id: "CSV-07",
    what: "example of an API not provided",
    breakIt: (b) =>
      b.csv(
        (c) =>
          (c.metadata.annotations["alm-examples"] = JSON.stringify([
            { apiVersion: "other.io/v1", kind: "Thing" },
          ])),
      ),
    message: "example must have a provided API: other.io/v1, Kind=Thing",
    path: "metadata.annotations.alm-examples[0]",
  },
  {
    id: "CSV-08",
    what: "owned API without example",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["alm-examples"] = "[]")),
    message: "provided API should have an example annotation: cache.example.com/v1alpha1, Kind=Memcached",
    level: "warning",
  },
  {
    id: "CSV-09",
    what: "no supported install mode",
    breakIt: (b) =>
      b.csv((c) => {
        for (const m of c.spec.installModes as Doc[]) m.supported = false;
      }),
    message: "none of InstallModeTypes are supported",
    path: "spec.installModes",
  },
  {
    id: "CSV-10",
    what: "minKubeVersion not a full version",
    breakIt: (b) => b.csv((c) => (c.spec.minKubeVersion = "1.16")),
    message: "(memcached-operator.v0.0.1) csv.Spec.MinKubeVersion has an invalid value: 1.16",
    path: "spec.minKubeVersion",
  },
  {
    id: "CSV-11",
    what: "no display name",
    breakIt: (b) => b.csv((c) => delete c.spec.displayName),
    message: "required field missing: spec.displayName",
    path: "spec.displayName",
  },
  {
    id: "CSV-12",
    what: "wrong-case olm annotation",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["olm.skiprange"] = "<0.0.1")),
    message: "provided annotation olm.skiprange uses wrong case and should be olm.skipRange instead",
  },
  {
    id: "CSV-13",
    what: "olm.properties annotation",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["olm.properties"] = "[]")),
    message: /^found olm.properties annotation/,
    level: "warning",
  },
  {
    id: "CSV-14",
    what: "no apiVersion",
    breakIt: (b) => b.csv((c) => delete c.apiVersion),
    message: "'apiVersion' is missing",
    path: "apiVersion",
  },
  {
    id: "CSV-15",
    what: "bad OpenShift feature value",
    breakIt: (b) =>
      b.csv((c) => (c.metadata.annotations["features.operators.openshift.io/disconnected"] = "yes")),
    message:
      'OpenShift feature annotation "features.operators.openshift.io/disconnected" must be "true" or "false", not "yes"',
  },
  {
    id: "CSV-16",
    what: "webhook served by a deployment the CSV does not have",
    breakIt: (b) =>
      b.csv(
        (c) =>
          (c.spec.webhookdefinitions = [
            {
              type: "ValidatingAdmissionWebhook",
              generateName: "vmemcached.kb.io",
              deploymentName: "elsewhere",
              containerPort: 443,
              targetPort: 9443,
              webhookPath: "/validate",
              admissionReviewVersions: ["v1"],
              sideEffects: "None",
              rules: [
                {
                  apiGroups: ["cache.example.com"],
                  apiVersions: ["v1alpha1"],
                  operations: ["CREATE"],
                  resources: ["memcacheds"],
                },
              ],
            },
          ]),
      ),
    message: 'deploymentName "elsewhere" is not a deployment of the install strategy',
    path: "spec.webhookdefinitions[0].deploymentName",
  },
  {
    id: "RI-01",
    what: "invalid related image",
    breakIt: (b) => b.csv((c) => (c.spec.relatedImages = [{ name: "db", image: "Not A Ref" }])),
    message: 'relatedImages[0] has an invalid image pullspec "Not A Ref"',
    path: "spec.relatedImages[0].image",
  },
  {
    id: "CRD-01",
    what: "two storage versions",
    breakIt: (b) => b.edit(CRD, (d) => d.spec.versions.push({ ...d.spec.versions[0], name: "v1beta1" })),
    message: "spec.versions: Invalid value: must have exactly one version marked as storage version",
    file: CRD,
  },
  {
    id: "BDL-01",
    what: "the same CRD twice",
    breakIt: async (b) => cp(join(b.dir, CRD), join(b.dir, "manifests/copy_memcacheds.yaml")),
    message:
      /^duplicate CRD "cache.example.com\/v1alpha1, Kind=Memcached" in bundle "memcached-operator.v0.0.1"/,
  },
  {
    id: "BDL-02",
    what: "owned CRD missing",
    breakIt: (b) => b.remove(CRD),
    message:
      'owned CRD "cache.example.com/v1alpha1, Kind=Memcached" not found in bundle "memcached-operator.v0.0.1"',
  },
  {
    id: "BDL-03",
    what: "CRD not owned",
    breakIt: (b) => b.csv((c) => (c.spec.customresourcedefinitions.owned = [])),
    message:
      'CRD "cache.example.com/v1alpha1, Kind=Memcached" is present in bundle "memcached-operator.v0.0.1" but not defined in CSV',
    file: CRD,
  },
  {
    id: "BDL-04",
    what: "ServiceAccount object duplicating the CSV's",
    breakIt: (b) =>
      b.write(
        "manifests/sa.yaml",
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: memcached-operator-controller-manager}\n",
      ),
    message:
      /^invalid service account found in bundle. This service account memcached-operator-controller-manager/,
  },
  {
    id: "BDL-05",
    what: "bundle over 1 MiB compressed",
    breakIt: (b) =>
      b.write(
        "manifests/big_v1_configmap.yaml",
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {blob: "${noise(1_100_000)}"}\n`,
      ),
    message: /^maximum bundle compressed size with gzip size exceeded/,
  },
  {
    id: "OH-01",
    what: "no provider",
    breakIt: (b) => b.csv((c) => delete c.spec.provider),
    message: "csv.Spec.Provider.Name not specified",
    optional: ["operatorhub"],
  },
  {
    id: "OH-02",
    what: "maintainer without email",
    breakIt: (b) => b.csv((c) => (c.spec.maintainers = [{ name: "x" }])),
    message: "csv.Spec.Maintainers elements should contain both name and email",
    optional: ["operatorhub"],
  },
  {
    id: "OH-03",
    what: "link without url",
    breakIt: (b) => b.csv((c) => (c.spec.links = [{ name: "x" }])),
    message: "csv.Spec.Links elements should contain both name and url",
    optional: ["operatorhub"],
  },
  {
    id: "OH-04",
    what: "version 0.0.0",
    breakIt: (b) => b.csv((c) => (c.spec.version = "0.0.0")),
    message: "csv.Spec.Version must be set",
    optional: ["operatorhub"],
  },
  {
    id: "OH-05",
    what: "empty icon",
    breakIt: async () => {},
    message: "csv.Spec.Icon elements should contain both data and mediatype",
    optional: ["suite=operatorframework"],
    path: "spec.icon[0]",
  },
  {
    id: "CAP-01",
    what: "unknown capability level",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations.capabilities = "Magic")),
    message: 'csv.Metadata.Annotations.Capabilities "Magic" is not a valid capabilities level',
    optional: ["capabilities"],
  },
  {
    id: "CAT-01",
    what: "unknown category",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations.categories = "Database, Cooking")),
    message: 'csv.Metadata.Annotations.Categories "Cooking" is not a valid category',
    optional: ["categories"],
  },
  {
    id: "GP-01",
    what: "no deployments",
    breakIt: (b) => b.csv((c) => (c.spec.install.spec.deployments = [])),
    message: "unable to find a deployment to install in the CSV",
    optional: ["good-practices"],
  },
  {
    id: "GP-02",
    what: "no resource requests",
    breakIt: (b) => b.csv((c) => delete container(c).resources),
    message: /^unable to find the resource requests for the container: \(manager\)/,
    level: "warning",
    optional: ["good-practices"],
  },
  {
    id: "GP-03",
    what: "owned CRD without description",
    breakIt: (b) => b.csv((c) => delete ownedCrd(c).description),
    message: 'owned CRD "memcacheds.cache.example.com" has an empty description',
    level: "warning",
    optional: ["good-practices"],
  },
  {
    id: "GP-04",
    what: "channel naming",
    breakIt: async () => {},
    message: /^channel\(s\) \[alpha\] are not following the recommended naming convention/,
    level: "warning",
    optional: ["good-practices"],
  },
  {
    id: "GP-05",
    what: "permission to create CRDs",
    breakIt: (b) =>
      b.csv((c) =>
        c.spec.install.spec.clusterPermissions[0].rules.push({
          apiGroups: ["apiextensions.k8s.io"],
          resources: ["customresourcedefinitions"],
          verbs: ["create"],
        }),
      ),
    message: /^CSV contains permissions to create CRD/,
    level: "warning",
    optional: ["good-practices"],
    path: "spec.install.spec.clusterPermissions[0].rules[8]",
  },
  {
    id: "GP-06",
    what: "CSV name without version",
    breakIt: (b) => b.csv((c) => (c.metadata.name = "memcached-operator")),
    message: /is not following the recommended naming convention: <operator-name>.v<semver>/,
    level: "warning",
    optional: ["good-practices"],
  },
  {
    id: "DEP-01",
    what: "v1beta1 CRD, error for 1.22+",
    breakIt: (b) => b.edit(CRD, (d) => (d.apiVersion = "apiextensions.k8s.io/v1beta1")),
    message: /^apiextensions.k8s.io\/v1beta1 CustomResourceDefinition is removed in Kubernetes 1.22/,
    optional: ["deprecated-apis"],
    k8sVersion: "1.25",
  },
  {
    id: "DEP-02",
    what: "policy/v1beta1 PDB",
    breakIt: (b) =>
      b.write(
        "manifests/pdb.yaml",
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\n",
      ),
    message: /^policy\/v1beta1 PodDisruptionBudget is removed in Kubernetes 1.25/,
    optional: ["deprecated-apis"],
  },
  {
    id: "DEP-03",
    what: "RBAC on PodSecurityPolicies",
    breakIt: (b) =>
      b.csv((c) =>
        c.spec.install.spec.clusterPermissions[0].rules.push({
          apiGroups: ["policy"],
          resources: ["podsecuritypolicies"],
          verbs: ["use"],
        }),
      ),
    message: /removed in v1.25: policy\/podsecuritypolicies/,
    level: "warning",
    optional: ["deprecated-apis"],
  },
  {
    id: "DEP-04",
    what: "autoscaling/v2beta2 HPA",
    breakIt: (b) =>
      b.write(
        "manifests/hpa.yaml",
        "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\n",
      ),
    message: /is removed in Kubernetes 1.26/,
    optional: ["deprecated-apis"],
    k8sVersion: "1.26.0",
  },
  {
    id: "DEP-05",
    what: "bad --k8s-version",
    breakIt: async () => {},
    message: "invalid value informed via the k8s key option : banana",
    optional: ["deprecated-apis"],
    k8sVersion: "banana",
  },
  {
    id: "COM-01",
    what: "1.22-removed API without maxOpenShiftVersion",
    breakIt: (b) => b.edit(CRD, (d) => (d.apiVersion = "apiextensions.k8s.io/v1beta1")),
    message: /does not set olm.maxOpenShiftVersion/,
    optional: ["community"],
  },
  {
    id: "V1-01",
    what: "OwnNamespace only",
    breakIt: (b) =>
      b.csv((c) => {
        for (const m of c.spec.installModes as Doc[]) m.supported = m.type === "OwnNamespace";
      }),
    message: "OLM v1 only supports operators that support the AllNamespaces install mode",
    optional: ["olm-v1"],
  },
  {
    id: "V1-02",
    what: "webhooks",
    breakIt: async () => {},
    message: "OLM v1 does not support bundles with webhookdefinitions",
    optional: ["olm-v1"],
  },
  {
    id: "V1-03",
    what: "dependencies",
    breakIt: (b) =>
      b.write("metadata/dependencies.yaml", "dependencies:\n- type: olm.label\n  value: {label: x}\n"),
    message: "OLM v1 does not support bundle dependencies (metadata/dependencies.yaml)",
    optional: ["olm-v1"],
  },
  {
    id: "V1-04",
    what: "owned APIService",
    breakIt: (b) =>
      b.csv(
        (c) =>
          (c.spec.apiservicedefinitions = {
            owned: [{ group: "x.io", version: "v1", kind: "X", name: "xs" }],
          }),
      ),
    message: "OLM v1 does not support bundles that own APIServices",
    optional: ["olm-v1"],
  },
];

/** Incompressible but reproducible data (a linear congruential generator). */
function noise(length: number): string {
  let x = 12345;
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    bytes[i] = x >>> 16;
  }
  return bytes.toString("base64");
}

export async function validBundle(): Promise<Bundle> {
  const dir = await testdir();
  await cp(join(MEMCACHED_EXPECTED, "bundle"), dir, { recursive: true });
  // Start from a bundle without warnings, so each case shows only what it broke.
  const b = new Bundle(dir);
  await b.csv((c) => (c.spec.minKubeVersion = "1.28.0"));
  return b;
}

