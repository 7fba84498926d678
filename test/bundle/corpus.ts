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
    message:
      "the bundle has no manifests/ directory; run `tsop bundle` to write one, or point at the directory that holds manifests/ and metadata/",
    file: "manifests/",
  },
  {
    id: "FMT-02",
    what: "no metadata dir",
    breakIt: (b) => b.remove("metadata"),
    message: "the bundle has no metadata/ directory; run `tsop bundle` to write metadata/annotations.yaml",
    file: "metadata/",
  },
  {
    id: "FMT-03",
    what: "empty manifests dir",
    breakIt: async (b) => {
      await b.remove("manifests");
      await mkdir(join(b.dir, "manifests"));
    },
    message:
      "manifests/ holds no YAML file; the ClusterServiceVersion and CRDs belong there (run `tsop bundle`)",
  },
  {
    id: "FMT-04",
    what: "annotations.yaml without annotations",
    breakIt: (b) => b.write(ANN, "labels: {}\n"),
    message:
      "metadata/annotations.yaml is missing or has no `annotations:` map; run `tsop bundle` to write it",
  },
  {
    id: "FMT-05",
    what: "missing package annotation",
    breakIt: (b) => b.ann((a) => delete a[`${K}.package.v1`]),
    message:
      "the operators.operatorframework.io.bundle.package.v1 annotation is missing; add it (tsop bundle writes every required annotation)",
    file: ANN,
    path: `annotations.${K}.package.v1`,
  },
  {
    id: "FMT-06",
    what: "wrong media type",
    breakIt: (b) => b.ann((a) => (a[`${K}.mediatype.v1`] = "plain")),
    message:
      'media type "plain" does not fit the content: manifests/ makes this a registry+v1 bundle, so set it to "registry+v1"',
    file: ANN,
  },
  {
    id: "FMT-07",
    what: "empty channels",
    breakIt: (b) => b.ann((a) => (a[`${K}.channels.v1`] = "")),
    message:
      "the operators.operatorframework.io.bundle.channels.v1 annotation is empty; list at least one channel, e.g. alpha",
  },
  {
    id: "FMT-08",
    what: "bad dependencies",
    breakIt: (b) =>
      b.write(
        "metadata/dependencies.yaml",
        "dependencies:\n- type: olm.package\n  value: {packageName: etcd, version: 'not a range'}\n- type: olm.gvk\n  value: {version: v1, kind: X}\n",
      ),
    message: 'olm.package version range "not a range" is not a semver range; write e.g. ">=0.9.0 <1.0.0"',
    file: "metadata/dependencies.yaml",
    path: "dependencies[0]",
  },
  {
    id: "FMT-09",
    what: "manifests annotation points elsewhere",
    breakIt: (b) => b.ann((a) => (a[`${K}.manifests.v1`] = "other/")),
    message: 'is "other/", but bundle images carry their manifests in manifests/; set it to "manifests/"',
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
    message:
      "a second ClusterServiceVersion (the first is manifests/memcached-operator.clusterserviceversion.yaml); a bundle holds exactly one, remove the other",
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
    message:
      "Deployment (apps/v1) is not a kind OLM installs from a bundle; remove it (workloads go in the CSV's install strategy)",
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
    message: 'metadata.namespace is "x"; remove it: OLM installs the object into the operator\'s namespace',
    path: "metadata.namespace",
  },
  {
    id: "CNT-03",
    what: "no CSV",
    breakIt: (b) => b.remove(CSV),
    message: "the bundle has no ClusterServiceVersion; run `tsop bundle` to generate one into manifests/",
  },
  {
    id: "CSV-01",
    what: "bad CSV name",
    breakIt: (b) => b.csv((c) => (c.metadata.name = "Memcached_Operator")),
    message:
      "CSV name \"Memcached_Operator\" is not usable: must be a lowercase RFC 1123 subdomain (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit); name it <package>.v<version>, e.g. memcached-operator.v0.0.1",
    file: CSV,
    path: "metadata.name",
  },
  {
    id: "CSV-02",
    what: "bad replaces",
    breakIt: (b) => b.csv((c) => (c.spec.replaces = "x".repeat(70))),
    message:
      'spec.replaces "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" cannot name a CSV: must be no more than 63 characters; give the name of the CSV this one upgrades',
    path: "spec.replaces",
  },
  {
    id: "CSV-03",
    what: "no annotations",
    breakIt: (b) => b.csv((c) => delete c.metadata.annotations),
    message:
      "the CSV has no metadata.annotations; tsop bundle writes alm-examples, capabilities and the others there",
    level: "warning",
  },
  {
    id: "CSV-04",
    what: "no examples",
    breakIt: (b) => b.csv((c) => delete c.metadata.annotations["alm-examples"]),
    message:
      "the CSV has no alm-examples annotation; add a sample custom resource for each owned API (config/samples)",
    level: "warning",
    path: "metadata.annotations.alm-examples",
  },
  {
    id: "CSV-05",
    what: "examples not JSON",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["alm-examples"] = "[{")),
    message: /^alm-examples is not valid JSON \(/,
    path: "metadata.annotations.alm-examples",
  },
  {
    id: "CSV-06",
    what: "owned CRD name without group",
    breakIt: (b) => b.csv((c) => (ownedCrd(c).name = "memcacheds")),
    message:
      'owned CRD name "memcacheds" is not <plural>.<group>; use the CRD\'s metadata.name, e.g. memcacheds.cache.example.com',
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
    message:
      "the example of other.io/v1, Kind=Thing is not of an API this CSV owns; remove it or add its CRD to spec.customresourcedefinitions.owned",
    path: "metadata.annotations.alm-examples[0]",
  },
  {
    id: "CSV-08",
    what: "owned API without example",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["alm-examples"] = "[]")),
    message:
      "owned API cache.example.com/v1alpha1, Kind=Memcached has no example in alm-examples; add a sample for it (config/samples)",
    level: "warning",
  },
  {
    id: "CSV-09",
    what: "no supported install mode",
    breakIt: (b) =>
      b.csv((c) => {
        for (const m of c.spec.installModes as Doc[]) m.supported = false;
      }),
    message:
      "no install mode is supported; set supported: true on at least one (AllNamespaces suits most operators)",
    path: "spec.installModes",
  },
  {
    id: "CSV-10",
    what: "minKubeVersion not a full version",
    breakIt: (b) => b.csv((c) => (c.spec.minKubeVersion = "1.16")),
    message: 'spec.minKubeVersion "1.16" is not a full version; write MAJOR.MINOR.PATCH, e.g. 1.28.0',
    path: "spec.minKubeVersion",
  },
  {
    id: "CSV-11",
    what: "no display name",
    breakIt: (b) => b.csv((c) => delete c.spec.displayName),
    message: "spec.displayName is missing; set it in the base CSV (config/manifests/bases)",
    path: "spec.displayName",
  },
  {
    id: "CSV-12",
    what: "wrong-case olm annotation",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["olm.skiprange"] = "<0.0.1")),
    message: 'annotation "olm.skiprange" has the wrong case: OLM reads "olm.skipRange"; rename it',
  },
  {
    id: "CSV-13",
    what: "olm.properties annotation",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations["olm.properties"] = "[]")),
    message:
      "olm.properties is set as a CSV annotation; move these properties to metadata/properties.yaml, where OLM and opm read them",
    level: "warning",
  },
  {
    id: "CSV-14",
    what: "no apiVersion",
    breakIt: (b) => b.csv((c) => delete c.apiVersion),
    message: "the CSV has no apiVersion; set operators.coreos.com/v1alpha1",
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
    message:
      '"Not A Ref" is not an image reference; write registry/repository:tag or registry/repository@sha256:<digest>',
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
      "CRD version cache.example.com/v1alpha1, Kind=Memcached is defined twice (also in manifests/cache.example.com_memcacheds.yaml); keep one file per CRD",
  },
  {
    id: "BDL-02",
    what: "owned CRD missing",
    breakIt: (b) => b.remove(CRD),
    message:
      "memcached-operator.v0.0.1 owns cache.example.com/v1alpha1, Kind=Memcached, but no CRD in the bundle defines it; add the CRD (tsop generate) or drop the entry",
  },
  {
    id: "BDL-03",
    what: "CRD not owned",
    breakIt: (b) => b.csv((c) => (c.spec.customresourcedefinitions.owned = [])),
    message:
      "CRD cache.example.com/v1alpha1, Kind=Memcached is in the bundle, but memcached-operator.v0.0.1 does not own it; add it to spec.customresourcedefinitions.owned (tsop bundle does) or remove the file",
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
      "ServiceAccount memcached-operator-controller-manager is the account a CSV deployment runs as, which OLM creates itself; remove this file",
  },
  {
    id: "BDL-05",
    what: "bundle over 1 MiB compressed",
    breakIt: (b) =>
      b.write(
        "manifests/big_v1_configmap.yaml",
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {blob: "${noise(1_100_000)}"}\n`,
      ),
    message:
      /^the manifests compress to ~1\.\d\d MiB \(1\.\d\d MiB uncompressed\), over the 1 MiB OLM can store/,
  },
  {
    id: "OH-01",
    what: "no provider",
    breakIt: (b) => b.csv((c) => delete c.spec.provider),
    message: "spec.provider.name is not set; name who provides the operator (--provider-name)",
    optional: ["operatorhub"],
  },
  {
    id: "OH-02",
    what: "maintainer without email",
    breakIt: (b) => b.csv((c) => (c.spec.maintainers = [{ name: "x" }])),
    message: "a maintainer needs both a name and an email",
    optional: ["operatorhub"],
  },
  {
    id: "OH-03",
    what: "link without url",
    breakIt: (b) => b.csv((c) => (c.spec.links = [{ name: "x" }])),
    message: "a link needs both a name and a url",
    optional: ["operatorhub"],
  },
  {
    id: "OH-04",
    what: "version 0.0.0",
    breakIt: (b) => b.csv((c) => (c.spec.version = "0.0.0")),
    message: "spec.version is not set (or is 0.0.0); pass --version to tsop bundle",
    optional: ["operatorhub"],
  },
  {
    id: "OH-05",
    what: "empty icon",
    breakIt: async () => {},
    message: "the icon needs both base64data and mediatype; add it with --icon <file>",
    optional: ["suite=operatorframework"],
    path: "spec.icon[0]",
  },
  {
    id: "CAP-01",
    what: "unknown capability level",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations.capabilities = "Magic")),
    message:
      'capability level "Magic" is unknown; use Basic Install, Seamless Upgrades, Full Lifecycle, Deep Insights or Auto Pilot',
    optional: ["capabilities"],
  },
  {
    id: "CAT-01",
    what: "unknown category",
    breakIt: (b) => b.csv((c) => (c.metadata.annotations.categories = "Database, Cooking")),
    message:
      'category "Cooking" is not in the standard list; pick one from it, or set OPERATOR_BUNDLE_CATEGORIES to a file with your own list',
    optional: ["categories"],
  },
  {
    id: "GP-01",
    what: "no deployments",
    breakIt: (b) => b.csv((c) => (c.spec.install.spec.deployments = [])),
    message: "the CSV installs no deployment; spec.install.spec.deployments is empty",
    optional: ["good-practices"],
  },
  {
    id: "GP-02",
    what: "no resource requests",
    breakIt: (b) => b.csv((c) => delete container(c).resources),
    message: "container manager requests no resources; request CPU and memory so the scheduler can place it",
    level: "warning",
    optional: ["good-practices"],
  },
  {
    id: "GP-03",
    what: "owned CRD without description",
    breakIt: (b) => b.csv((c) => delete ownedCrd(c).description),
    message:
      'owned CRD "memcacheds.cache.example.com" has no description; describe it (the description of the base CSV entry, from the kind\'s doc comment)',
    level: "warning",
    optional: ["good-practices"],
  },
  {
    id: "GP-04",
    what: "channel naming",
    breakIt: async () => {},
    message:
      "channel name(s) alpha do not start with candidate, stable or fast, as OLM's channel naming guide recommends (https://olm.operatorframework.io/docs/best-practices/channel-naming)",
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
    message:
      "the operator may create CustomResourceDefinitions; ship your CRDs in the bundle instead of creating them (or other operators' CRDs) at run time",
    level: "warning",
    optional: ["good-practices"],
    path: "spec.install.spec.clusterPermissions[0].rules[8]",
  },
  {
    id: "GP-06",
    what: "CSV name without version",
    breakIt: (b) => b.csv((c) => (c.metadata.name = "memcached-operator")),
    message:
      'CSV name "memcached-operator" is not <package>.v<version>; name it e.g. memcached-operator.v0.0.1 (tsop bundle --version does)',
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
    message:
      "RBAC asks for policy/podsecuritypolicies, removed in Kubernetes 1.25; drop the rule or move to the API that replaced it",
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
    message: '--k8s-version "banana" is not a Kubernetes version; write e.g. 1.29 or 1.29.0',
    optional: ["deprecated-apis"],
    k8sVersion: "banana",
  },
  {
    id: "COM-01",
    what: "1.22-removed API without maxOpenShiftVersion",
    breakIt: (b) => b.edit(CRD, (d) => (d.apiVersion = "apiextensions.k8s.io/v1beta1")),
    message:
      "the bundle uses APIs removed in Kubernetes 1.22 (OpenShift 4.9) but sets no olm.maxOpenShiftVersion; set it to 4.8 so OpenShift 4.9 and later do not offer the bundle",
    optional: ["community"],
  },
  {
    id: "V1-01",
    what: "OwnNamespace only",
    breakIt: (b) =>
      b.csv((c) => {
        for (const m of c.spec.installModes as Doc[]) m.supported = m.type === "OwnNamespace";
      }),
    message:
      "OLM v1 installs only operators that support the AllNamespaces install mode (SingleNamespace and OwnNamespace need its alpha SingleOwnNamespaceInstallSupport gate); support AllNamespaces",
    path: "spec.installModes",
    optional: ["olm-v1"],
  },
  {
    id: "V1-02",
    what: "webhook rule on every API group",
    breakIt: (b) => b.csv((c) => (c.spec.webhookdefinitions[0].rules[0].apiGroups = ["*"])),
    message:
      'webhook mmemcached-v1alpha1.kb.io has a rule on API group "*"; OLM v1 refuses admission rules on all groups and on its own group olm.operatorframework.io: list the groups the webhook needs',
    path: "spec.webhookdefinitions[0].rules[0].apiGroups",
    optional: ["olm-v1"],
  },
  {
    id: "V1-03",
    what: "package dependency",
    breakIt: (b) =>
      b.write(
        "metadata/dependencies.yaml",
        "dependencies:\n- type: olm.package\n  value: {packageName: etcd, version: '>=0.9.0'}\n",
      ),
    message:
      "OLM v1 refuses bundles with dependencies: this olm.package dependency becomes the catalog property olm.package.required; remove it and have users install etcd first",
    file: "metadata/dependencies.yaml",
    path: "dependencies[0]",
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
    message:
      "OLM v1 refuses bundles that own APIServices; serve the API as a CustomResourceDefinition instead",
    path: "spec.apiservicedefinitions.owned",
    optional: ["olm-v1"],
  },
  {
    id: "V1-05",
    what: "label dependency",
    breakIt: (b) =>
      b.write("metadata/dependencies.yaml", "dependencies:\n- type: olm.label\n  value: {label: x}\n"),
    message:
      "OLM v1 ignores olm.label dependencies: nothing makes sure an operator with label x is installed; document it as a prerequisite",
    level: "warning",
    file: "metadata/dependencies.yaml",
    path: "dependencies[0]",
    optional: ["olm-v1"],
  },
  {
    id: "V1-06",
    what: "OperatorCondition RBAC",
    breakIt: (b) =>
      b.csv((c) =>
        c.spec.install.spec.clusterPermissions[0].rules.push({
          apiGroups: ["operators.coreos.com"],
          resources: ["operatorconditions"],
          verbs: ["get", "list", "watch"],
        }),
      ),
    message:
      "the operator may use the OperatorCondition API (its RBAC grants operatorconditions), which OLM v1 does not provide: it creates no OperatorCondition and sets no OPERATOR_CONDITION_NAME",
    level: "warning",
    path: "spec.install.spec.clusterPermissions[0].rules[8]",
    optional: ["olm-v1"],
  },
  {
    id: "V1-07",
    what: "deployment name twice",
    breakIt: (b) =>
      b.csv((c) => {
        const deployments = c.spec.install.spec.deployments as Doc[];
        deployments.push(structuredClone(deployments[0]!));
      }),
    message:
      'deployment name "memcached-operator-controller-manager" is used twice; OLM v1 refuses a bundle whose install strategy repeats a deployment name',
    path: "spec.install.spec.deployments[1].name",
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
