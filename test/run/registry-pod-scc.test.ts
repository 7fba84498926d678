// The registry pod tsop creates, checked against OpenShift's restricted-v2 SCC (the default for
// authenticated users since OpenShift 4.11). No OpenShift here and its matcher
// (openshift/apiserver-library-go sccmatching) could not be fetched from the Go proxy in this
// environment ("module path not permitted"), so the SCC's published definition is encoded below
// with the admission rules sccmatching applies to it: a field the pod leaves unset is filled in by
// the SCC (user from the namespace's range, SELinux level, seccomp, dropped capabilities); a field
// the pod sets must fit the SCC or the pod is rejected.
import { describe, expect, it } from "vitest";
import { CATALOG_INIT_IMAGE, OPM_IMAGE } from "../../src/common/pins.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { singleBundleCatalog } from "../../src/olm/run/catalog.js";
import { resolveInstallMode } from "../../src/olm/run/install-mode.js";
import { planRunBundle } from "../../src/olm/run/plan.js";
import { loadFixture } from "./fixtures.js";

/** restricted-v2 as OpenShift ships it (oc get scc restricted-v2 -o yaml). */
const RESTRICTED_V2 = {
  allowHostDirVolumePlugin: false,
  allowHostIPC: false,
  allowHostNetwork: false,
  allowHostPID: false,
  allowHostPorts: false,
  allowPrivilegeEscalation: false,
  allowPrivilegedContainer: false,
  allowedCapabilities: ["NET_BIND_SERVICE"],
  requiredDropCapabilities: ["ALL"],
  runAsUser: { type: "MustRunAsRange" },
  seLinuxContext: { type: "MustRunAs" },
  fsGroup: { type: "MustRunAs" },
  supplementalGroups: { type: "RunAsAny" },
  seccompProfiles: ["runtime/default"],
  volumes: [
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
  ],
};

/** A namespace's ranges as OpenShift annotates them (openshift.io/sa.scc.uid-range etc.). */
const NAMESPACE_UID_RANGE = { min: 1000680000, size: 10000 };
const NAMESPACE_SELINUX_LEVEL = "s0:c26,c15";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- unstructured pod spec
type Unstructured = Record<string, any>;

/** Why restricted-v2 would reject the pod (empty: admitted). */
function restrictedV2Violations(pod: KubeObject): string[] {
  const scc = RESTRICTED_V2;
  const spec = pod.spec as Unstructured;
  const problems: string[] = [];
  if (spec.hostNetwork && !scc.allowHostNetwork) problems.push("hostNetwork");
  if (spec.hostPID && !scc.allowHostPID) problems.push("hostPID");
  if (spec.hostIPC && !scc.allowHostIPC) problems.push("hostIPC");
  const podSc = (spec.securityContext ?? {}) as Unstructured;
  const inRange = (uid: number) =>
    uid >= NAMESPACE_UID_RANGE.min && uid < NAMESPACE_UID_RANGE.min + NAMESPACE_UID_RANGE.size;
  if (podSc.runAsUser !== undefined && !inRange(podSc.runAsUser))
    problems.push(`pod runAsUser ${podSc.runAsUser} is outside the namespace's range`);
  if (podSc.fsGroup !== undefined && !inRange(podSc.fsGroup))
    problems.push(`pod fsGroup ${podSc.fsGroup} is outside the namespace's range`);
  const level = podSc.seLinuxOptions?.level;
  if (level !== undefined && level !== NAMESPACE_SELINUX_LEVEL) problems.push(`pod seLinux level ${level}`);
  const seccomp = (sc: Unstructured | undefined) => sc?.seccompProfile?.type as string | undefined;
  if (seccomp(podSc) !== undefined && seccomp(podSc) !== "RuntimeDefault")
    problems.push(`pod seccompProfile ${seccomp(podSc)} (allowed: ${scc.seccompProfiles.join(", ")})`);
  for (const v of (spec.volumes ?? []) as Unstructured[]) {
    for (const kind of Object.keys(v).filter((k) => k !== "name")) {
      if (!scc.volumes.includes(kind)) problems.push(`volume ${v.name}: type ${kind} not allowed`);
    }
  }
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])] as Unstructured[];
  for (const c of containers) {
    const sc = (c.securityContext ?? {}) as Unstructured;
    if (sc.privileged && !scc.allowPrivilegedContainer) problems.push(`${c.name}: privileged`);
    if (sc.allowPrivilegeEscalation === true && !scc.allowPrivilegeEscalation)
      problems.push(`${c.name}: allowPrivilegeEscalation true`);
    for (const cap of (sc.capabilities?.add ?? []) as string[]) {
      if (!scc.allowedCapabilities.includes(cap)) problems.push(`${c.name}: adds capability ${cap}`);
    }
    if (sc.runAsUser !== undefined && !inRange(sc.runAsUser))
      problems.push(`${c.name}: runAsUser ${sc.runAsUser} is outside the namespace's range`);
    if (seccomp(sc) !== undefined && seccomp(sc) !== "RuntimeDefault")
      problems.push(`${c.name}: seccompProfile ${seccomp(sc)}`);
    for (const p of (c.ports ?? []) as Unstructured[]) {
      if (p.hostPort && !scc.allowHostPorts) problems.push(`${c.name}: hostPort ${p.hostPort}`);
    }
  }
  return problems;
}

async function registryPod(): Promise<KubeObject> {
  const bundle = await loadFixture("0.0.1");
  const plan = planRunBundle({
    bundle,
    content: singleBundleCatalog(bundle),
    installMode: resolveInstallMode(bundle.csv, "demo", undefined),
    namespace: "demo",
    runId: "run1",
    indexImage: OPM_IMAGE,
    initImage: CATALOG_INIT_IMAGE,
    securityContext: "restricted",
    createNamespace: false,
    createOperatorGroup: true,
  });
  return plan.catalog.pod;
}

/** Docker's rule: the first path component names a registry only if it has a dot or port, or is localhost. */
function registryOf(image: string): string {
  const first = image.split("/")[0] ?? "";
  const hasRegistry = image.includes("/") && (/[.:]/.test(first) || first === "localhost");
  return hasRegistry ? first : "docker.io";
}

describe("registry pod against OpenShift's restricted-v2 SCC", () => {
  it("is admitted: no fixed user, non-root, no escalation, ALL dropped, RuntimeDefault seccomp, allowed volumes, no host access", async () => {
    const pod = await registryPod();
    expect(restrictedV2Violations(pod)).toEqual([]);
    // What the SCC would otherwise have to reject or could not assign.
    const spec = pod.spec as Unstructured;
    expect(spec.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    for (const c of [...spec.initContainers, ...spec.containers] as Unstructured[]) {
      expect(c.securityContext, c.name).toMatchObject({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
        runAsNonRoot: true,
      });
      expect(c.securityContext.runAsUser, c.name).toBeUndefined();
      expect(c.securityContext.capabilities.add, c.name).toBeUndefined();
    }
  });

  it("the checker rejects what restricted-v2 rejects (each rule breaks once)", async () => {
    const base = await registryPod();
    const broken = (mutate: (spec: Unstructured) => void): string[] => {
      const pod = JSON.parse(JSON.stringify(base)) as KubeObject; // as sent to the server: no shared objects
      mutate(pod.spec as Unstructured);
      return restrictedV2Violations(pod);
    };
    expect(broken((s) => (s.containers[0].securityContext.runAsUser = 1001))).toEqual([
      "registry-grpc: runAsUser 1001 is outside the namespace's range",
    ]);
    expect(broken((s) => (s.securityContext.runAsUser = 1000680001))).toEqual([]);
    expect(broken((s) => (s.initContainers[0].securityContext.capabilities.add = ["SYS_ADMIN"]))).toEqual([
      "unpack-catalog: adds capability SYS_ADMIN",
    ]);
    expect(
      broken((s) => (s.initContainers[0].securityContext.capabilities.add = ["NET_BIND_SERVICE"])),
    ).toEqual([]);
    expect(broken((s) => (s.containers[0].securityContext.allowPrivilegeEscalation = true))).toEqual([
      "registry-grpc: allowPrivilegeEscalation true",
    ]);
    expect(broken((s) => (s.securityContext.seccompProfile = { type: "Unconfined" }))).toEqual([
      "pod seccompProfile Unconfined (allowed: runtime/default)",
    ]);
    expect(broken((s) => s.volumes.push({ name: "h", hostPath: { path: "/" } }))).toEqual([
      "volume h: type hostPath not allowed",
    ]);
    expect(broken((s) => (s.hostNetwork = true))).toEqual(["hostNetwork"]);
    expect(broken((s) => (s.containers[0].ports[0].hostPort = 50051))).toEqual([
      "registry-grpc: hostPort 50051",
    ]);
  });

  it("pulls nothing from docker.io by default", async () => {
    const pod = await registryPod();
    const spec = pod.spec as Unstructured;
    const images = [...spec.initContainers, ...spec.containers].map((c: Unstructured) => c.image as string);
    expect(images.map(registryOf)).toEqual(["quay.io", "quay.io"]);
    expect(registryOf("busybox:1.36")).toBe("docker.io");
    expect(registryOf("library/busybox")).toBe("docker.io");
  });
});
