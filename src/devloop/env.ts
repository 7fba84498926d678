// The environment the kubelet would give the manager container, computed for a local process:
// envFrom first, then env in order, each `value` expanded against the variables declared before it
// (kubelet rules, expand.ts), each `valueFrom` resolved: fieldRef from the pod this process stands
// in for, resourceFieldRef from the container's resources (the machine's size where no limit is
// set), configMapKeyRef/secretKeyRef and envFrom read from the cluster in the run's namespace.
import { cpus, hostname, totalmem } from "node:os";
import { InvalidInputError } from "../common/errors.js";
import { expand, mappingFor } from "./expand.js";
import { divideQuantity, parseQuantity } from "./quantity.js";

/** The pod a local run stands in for: what fieldRef values resolve to. */
export interface LocalPod {
  name: string;
  namespace: string;
  serviceAccountName: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Reads a ConfigMap's data or a Secret's decoded data; undefined when it does not exist. */
export type SourceReader = (
  kind: "ConfigMap" | "Secret",
  name: string,
) => Promise<Record<string, string> | undefined>;

export interface ContainerEnvOptions {
  container: Record<string, unknown>;
  pod: LocalPod;
  read: SourceReader;
  /** Names the container in errors, e.g. "config/manager: Deployment controller-manager, container manager". */
  where: string;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);
const str = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);

/** Variables in the order the container declares them (a later duplicate keeps the first position). */
export async function containerEnv(options: ContainerEnvOptions): Promise<Map<string, string>> {
  const vars = new Map<string, string>();
  const cache = new Map<string, Promise<Record<string, string> | undefined>>();
  const read = (kind: "ConfigMap" | "Secret", name: string) => {
    const key = `${kind}/${name}`;
    if (!cache.has(key)) cache.set(key, options.read(kind, name));
    return cache.get(key) as Promise<Record<string, string> | undefined>;
  };
  for (const from of recs(options.container.envFrom)) await addEnvFrom(vars, from, read, options);
  const mapping = mappingFor(vars);
  for (const entry of recs(options.container.env)) {
    const name = str(entry.name);
    const value = str(entry.value);
    if (value !== "") vars.set(name, expand(value, mapping));
    else if (isRec(entry.valueFrom)) {
      const resolved = await valueFrom(entry.valueFrom, name, read, options);
      if (resolved !== undefined) vars.set(name, resolved);
    } else vars.set(name, "");
  }
  return vars;
}

async function addEnvFrom(
  vars: Map<string, string>,
  from: Rec,
  read: SourceReader,
  options: ContainerEnvOptions,
): Promise<void> {
  const kind = isRec(from.configMapRef) ? "ConfigMap" : isRec(from.secretRef) ? "Secret" : undefined;
  if (!kind) return;
  const ref = (kind === "ConfigMap" ? from.configMapRef : from.secretRef) as Rec;
  const data = await read(kind, str(ref.name));
  if (!data) {
    if (ref.optional === true) return;
    throw missing(options, `envFrom ${kind} ${options.pod.namespace}/${str(ref.name)}`);
  }
  for (const [key, value] of Object.entries(data)) vars.set(str(from.prefix) + key, value);
}

async function valueFrom(
  source: Rec,
  name: string,
  read: SourceReader,
  options: ContainerEnvOptions,
): Promise<string | undefined> {
  if (isRec(source.fieldRef)) return fieldValue(str(source.fieldRef.fieldPath), name, options);
  if (isRec(source.resourceFieldRef)) return resourceValue(source.resourceFieldRef, name, options);
  for (const kind of ["ConfigMap", "Secret"] as const) {
    const ref = source[kind === "ConfigMap" ? "configMapKeyRef" : "secretKeyRef"];
    if (!isRec(ref)) continue;
    const optional = ref.optional === true;
    const data = await read(kind, str(ref.name));
    const what = `${kind} ${options.pod.namespace}/${str(ref.name)}`;
    if (!data) {
      if (optional) return undefined;
      throw missing(options, `${what} (env ${name})`);
    }
    const value = data[str(ref.key)];
    if (value === undefined && !optional)
      throw missing(options, `key ${str(ref.key)} of ${what} (env ${name})`);
    return value;
  }
  throw new InvalidInputError(
    `${options.where}: env ${name} has a valueFrom tsop cannot resolve for a local process`,
    {
      hint: "use value, fieldRef, resourceFieldRef, configMapKeyRef or secretKeyRef",
    },
  );
}

function missing(options: ContainerEnvOptions, what: string): InvalidInputError {
  return new InvalidInputError(`${options.where} needs ${what}, which does not exist in the cluster`, {
    hint: `create it in namespace ${options.pod.namespace} (or mark the reference optional), then retry`,
  });
}

/** The downward API fields a pod has, as this local process. */
function fieldValue(path: string, name: string, options: ContainerEnvOptions): string {
  const { pod } = options;
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return (keyed[1] === "labels" ? pod.labels : pod.annotations)[keyed[2] ?? ""] ?? "";
  switch (path) {
    case "metadata.name":
      return pod.name;
    case "metadata.namespace":
      return pod.namespace;
    case "metadata.uid":
      return "";
    case "spec.nodeName":
      return hostname();
    case "spec.serviceAccountName":
      return pod.serviceAccountName;
    case "status.hostIP":
    case "status.hostIPs":
    case "status.podIP":
    case "status.podIPs":
      return "127.0.0.1";
    default:
      throw new InvalidInputError(
        `${options.where}: env ${name} refers to field ${path}, which pods do not have`,
        {
          hint: "use a downward API field such as metadata.namespace, metadata.name or spec.serviceAccountName",
        },
      );
  }
}

function resourceValue(ref: Rec, name: string, options: ContainerEnvOptions): string {
  const resource = str(ref.resource);
  const where = `${options.where}: env ${name}`;
  const [bucket, kind] = resource.split(".", 2) as [string, string | undefined];
  const resources = isRec(options.container.resources) ? options.container.resources : {};
  const limits = isRec(resources.limits) ? resources.limits : {};
  const requests = isRec(resources.requests) ? resources.requests : {};
  const machine: Record<string, number> = { cpu: cpus().length, memory: totalmem() };
  if (
    (bucket !== "limits" && bucket !== "requests") ||
    !kind ||
    !(kind in machine || kind === "ephemeral-storage")
  )
    throw new InvalidInputError(`${where}: resourceFieldRef ${resource} is not a container resource`, {
      hint: "use limits.cpu, limits.memory, requests.cpu, requests.memory or *.ephemeral-storage",
    });
  const limit =
    limits[kind] !== undefined ? parseQuantity(str(limits[kind]), `${where} limits.${kind}`) : undefined;
  const request =
    requests[kind] !== undefined
      ? parseQuantity(str(requests[kind]), `${where} requests.${kind}`)
      : undefined;
  // As the kubelet: a missing limit is the node's allocatable; a missing request defaults to the limit.
  const value = bucket === "limits" ? (limit ?? machine[kind] ?? 0) : (request ?? limit ?? 0);
  const divisor = ref.divisor === undefined ? 1 : parseQuantity(str(ref.divisor), `${where} divisor`);
  if (divisor <= 0) throw new InvalidInputError(`${where}: divisor must be positive`);
  return divideQuantity(value, divisor);
}
