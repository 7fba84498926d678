// A small checker for the Pod Security Standards "restricted" profile (the rules a pod template
// can break): https://kubernetes.io/docs/concepts/security/pod-security-standards/
type Obj = Record<string, unknown>;

const asObj = (value: unknown): Obj => (typeof value === "object" && value !== null ? (value as Obj) : {});
const ALLOWED_VOLUME_TYPES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

/** Every violation of the restricted profile in a pod spec, as readable strings (empty when it passes). */
export function restrictedViolations(podSpec: unknown): string[] {
  const pod = asObj(podSpec);
  const problems: string[] = [];
  for (const key of ["hostNetwork", "hostPID", "hostIPC"])
    if (pod[key] === true) problems.push(`${key}: true`);
  for (const volume of (pod.volumes ?? []) as Obj[]) {
    for (const type of Object.keys(volume).filter((k) => k !== "name")) {
      if (!ALLOWED_VOLUME_TYPES.has(type)) problems.push(`volume ${String(volume.name)} uses ${type}`);
    }
  }
  const podContext = asObj(pod.securityContext);
  const podSeccomp = asObj(podContext.seccompProfile).type;
  const containers = [
    ...((pod.initContainers ?? []) as Obj[]),
    ...((pod.containers ?? []) as Obj[]),
    ...((pod.ephemeralContainers ?? []) as Obj[]),
  ];
  if (containers.length === 0) problems.push("no containers");
  for (const container of containers) {
    const name = String(container.name);
    const sc = asObj(container.securityContext);
    if (sc.privileged === true) problems.push(`${name}: privileged`);
    if (sc.allowPrivilegeEscalation !== false)
      problems.push(`${name}: allowPrivilegeEscalation is not false`);
    const nonRoot = sc.runAsNonRoot ?? podContext.runAsNonRoot;
    if (nonRoot !== true) problems.push(`${name}: runAsNonRoot is not true`);
    const user = sc.runAsUser ?? podContext.runAsUser;
    if (user === 0) problems.push(`${name}: runAsUser 0`);
    const seccomp = asObj(sc.seccompProfile).type ?? podSeccomp;
    if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost")
      problems.push(`${name}: seccompProfile not set`);
    const capabilities = asObj(sc.capabilities);
    const drop = (capabilities.drop ?? []) as string[];
    if (!drop.includes("ALL")) problems.push(`${name}: capabilities.drop lacks ALL`);
    const add = (capabilities.add ?? []) as string[];
    if (add.some((c) => c !== "NET_BIND_SERVICE"))
      problems.push(`${name}: adds capabilities ${add.join(",")}`);
    for (const port of (container.ports ?? []) as Obj[]) {
      if (port.hostPort !== undefined && port.hostPort !== 0)
        problems.push(`${name}: hostPort ${String(port.hostPort)}`);
    }
  }
  return problems;
}
