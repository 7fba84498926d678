// The Go-built components of the real test bed and the peer tools, pinned. Change versions here
// only: the cache key of each binary is its name plus everything that goes into its build.

export const KUBERNETES_VERSION = "v1.34.4";
const STAGING_VERSION = "v0.34.4";
export const ETCD_VERSION = "v3.6.16";
export const KWOK_VERSION = "v0.7.0";
/** Same as OLM_VERSION in src/common/pins.ts: the rig runs the operators of the manifests tsop installs. */
export const OLM_VERSION = "v0.28.0";
export const OPM_VERSION = "v1.47.0";
export const OPERATOR_SDK_VERSION = "v1.42.2";
export const CONTROLLER_GEN_VERSION = "v0.19.0";
export const KUSTOMIZE_VERSION = "v5.7.1";
/** Helm v3 whose client-go (v0.34) matches the bed's Kubernetes minor: the oracle of `tsop helm`. */
export const HELM_VERSION = "v3.19.5";
/**
 * cosign v2 (the newest v2): the oracle of `tsop image sign/verify` and of the SBOM attachment. v2, not
 * v3: v3 signs in the Sigstore bundle format (an OCI referrer) by default, while the `sha256-<hex>.sig`
 * tag layout that tsop writes, and `cosign download sbom`, are v2's (v3 still reads that layout).
 */
export const COSIGN_VERSION = "v2.6.5";
/** OLM v1 (operator-controller, with catalogd merged in): catalogd from this release (docs/olm-v1.md). */
export const OPERATOR_CONTROLLER_VERSION = "v1.11.0";
/**
 * operator-controller's own controller (ClusterExtension) from the newest release that built here: of
 * the later ones tried, v1.10.0 and v1.11.0 need pkg.package-operator.run/boxcutter, which the module
 * proxy refuses, and v1.3.0–v1.8.0 are not served at all (docs/olm-v1.md).
 */
export const CLUSTER_EXTENSION_CONTROLLER_VERSION = "v1.2.0";

// The k8s.io/* staging modules that k8s.io/kubernetes requires as v0.0.0 and replaces with
// relative paths; a wrapper module replaces them with their published versions instead.
const KUBERNETES_STAGING = [
  "api",
  "apiextensions-apiserver",
  "apimachinery",
  "apiserver",
  "cli-runtime",
  "client-go",
  "cloud-provider",
  "cluster-bootstrap",
  "code-generator",
  "component-base",
  "component-helpers",
  "controller-manager",
  "cri-api",
  "cri-client",
  "csi-translation-lib",
  "dynamic-resource-allocation",
  "endpointslice",
  "externaljwt",
  "kms",
  "kube-aggregator",
  "kube-controller-manager",
  "kube-proxy",
  "kube-scheduler",
  "kubectl",
  "kubelet",
  "metrics",
  "mount-utils",
  "pod-security-admission",
  "sample-apiserver",
];

function kubernetesLdflags() {
  const [major, minor] = KUBERNETES_VERSION.slice(1).split(".");
  const vars = {
    gitVersion: KUBERNETES_VERSION,
    gitMajor: major,
    gitMinor: minor,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "1970-01-01T00:00:00Z",
  };
  const flags = [];
  for (const pkg of ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]) {
    for (const [name, value] of Object.entries(vars)) flags.push(`-X ${pkg}.${name}=${value}`);
  }
  return flags.join(" ");
}

function kubernetesWrapper() {
  return {
    require: { "k8s.io/kubernetes": KUBERNETES_VERSION },
    replace: Object.fromEntries(
      KUBERNETES_STAGING.map((m) => [`k8s.io/${m}`, `k8s.io/${m} ${STAGING_VERSION}`]),
    ),
  };
}

const kubernetes = (name) => ({
  name,
  version: KUBERNETES_VERSION,
  wrapper: kubernetesWrapper(),
  package: `k8s.io/kubernetes/cmd/${name}`,
  tags: ["providerless"],
  ldflags: kubernetesLdflags(),
});

const olm = (name, path) => ({
  name,
  version: OLM_VERSION,
  // OLM's go.mod pins openshift's API modules by replace directives; `go install` refuses
  // modules with replaces, so a wrapper module carries them.
  wrapper: {
    require: { "github.com/operator-framework/operator-lifecycle-manager": OLM_VERSION },
    replace: {
      "github.com/openshift/api": "github.com/openshift/api v0.0.0-20221021112143-4226c2167e40",
      "github.com/openshift/client-go": "github.com/openshift/client-go v0.0.0-20221019143426-16aed247da5c",
    },
  },
  package: `github.com/operator-framework/operator-lifecycle-manager/${path}`,
  ldflags: `-X github.com/operator-framework/operator-lifecycle-manager/pkg/version.OLMVersion=${OLM_VERSION.slice(1)}`,
});

/** Every component, in the order a full build makes them (test bed first, peers last). */
export const COMPONENTS = [
  {
    name: "etcd",
    version: ETCD_VERSION,
    // server/v3's go.mod replaces its sibling modules by relative paths: the wrapper requires
    // them at the same version and calls the server's main.
    wrapper: {
      require: Object.fromEntries(
        ["server/v3", "api/v3", "client/pkg/v3", "client/v3", "pkg/v3"].map((m) => [
          `go.etcd.io/etcd/${m}`,
          ETCD_VERSION,
        ]),
      ),
      main: 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n',
    },
    package: ".",
  },
  kubernetes("kube-apiserver"),
  kubernetes("kube-controller-manager"),
  kubernetes("kube-scheduler"),
  { name: "kwok", version: KWOK_VERSION, install: `sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}` },
  {
    name: "opm",
    version: OPM_VERSION,
    // A wrapper module, not `go install …@version`: that also asks the proxy for the module's version
    // list (deprecation check), which the proxy refuses for operator-registry (403).
    wrapper: { require: { "github.com/operator-framework/operator-registry": OPM_VERSION } },
    package: "github.com/operator-framework/operator-registry/cmd/opm",
    tags: ["json1", "containers_image_openpgp"],
  },
  olm("olm", "cmd/olm"),
  olm("catalog", "cmd/catalog"),
  olm("package-server", "cmd/package-server"),
  // The copy tool OLM's bundle-unpack Job runs inside the bundle image (util/cpb in OLM's image).
  olm("cpb", "util/cpb"),
  {
    name: "catalogd",
    version: OPERATOR_CONTROLLER_VERSION,
    // A wrapper module for the same reason as opm (the proxy refuses the module's version list).
    wrapper: {
      require: { "github.com/operator-framework/operator-controller": OPERATOR_CONTROLLER_VERSION },
    },
    package: "github.com/operator-framework/operator-controller/cmd/catalogd",
    tags: ["containers_image_openpgp"],
    ldflags: `-X github.com/operator-framework/operator-controller/internal/shared/version.version=${OPERATOR_CONTROLLER_VERSION}`,
    // The release's install manifest: the ClusterCatalog CRD, catalogd's RBAC and webhook configuration.
    files: { "olmv1-standard.yaml": "manifests/standard.yaml" },
  },
  {
    name: "operator-controller",
    version: CLUSTER_EXTENSION_CONTROLLER_VERSION,
    wrapper: {
      require: { "github.com/operator-framework/operator-controller": CLUSTER_EXTENSION_CONTROLLER_VERSION },
    },
    package: "github.com/operator-framework/operator-controller/cmd/operator-controller",
    tags: ["containers_image_openpgp"],
    ldflags: `-X github.com/operator-framework/operator-controller/internal/shared/version.version=${CLUSTER_EXTENSION_CONTROLLER_VERSION}`,
    // The ClusterExtension CRD of the same release.
    files: {
      "clusterextensions.crd.yaml":
        "config/base/operator-controller/crd/bases/olm.operatorframework.io_clusterextensions.yaml",
    },
  },
  {
    name: "operator-sdk",
    version: OPERATOR_SDK_VERSION,
    // A wrapper module for the same reason as opm: the proxy refuses operator-sdk's version list.
    wrapper: { require: { "github.com/operator-framework/operator-sdk": OPERATOR_SDK_VERSION } },
    package: "github.com/operator-framework/operator-sdk/cmd/operator-sdk",
    tags: ["containers_image_openpgp"],
  },
  {
    name: "controller-gen",
    version: CONTROLLER_GEN_VERSION,
    install: `sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}`,
  },
  {
    name: "kustomize",
    version: KUSTOMIZE_VERSION,
    install: `sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}`,
  },
  {
    name: "helm",
    version: HELM_VERSION,
    // Only cmd/helm (the CLI), the one package the chart tests run; the version stamped as Helm's
    // Makefile does, so `helm version` and the chart's capabilities report it.
    install: `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`,
    ldflags: `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
  },
  {
    name: "cosign",
    version: COSIGN_VERSION,
    // Only cmd/cosign, with the version stamped as cosign's Makefile does (`cosign version`).
    install: `github.com/sigstore/cosign/v2/cmd/cosign@${COSIGN_VERSION}`,
    ldflags: `-X sigs.k8s.io/release-utils/version.gitVersion=${COSIGN_VERSION}`,
  },
];

/** The test bed proper; `build` with no names builds these and the peers. */
export const TEST_BED = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kwok",
  "opm",
  "olm",
  "catalog",
  "package-server",
  "cpb",
];
