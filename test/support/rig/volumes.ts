// A pod's volumes as directories, the way a kubelet materialises them: emptyDir, configMap and
// secret (with items, binaryData), and the projected service-account volume (a real token from the
// TokenRequest API bound to the pod, the cluster CA from kube-root-ca.crt, the namespace).
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { KubeClient } from "../../../src/kube/client.js";
import type { KubeObject } from "../../../src/kube/objects.js";

type Items = Array<{ key: string; path: string; mode?: number }>;

interface VolumeSpec {
  name: string;
  emptyDir?: unknown;
  configMap?: { name: string; items?: Items; optional?: boolean };
  secret?: { secretName: string; items?: Items; optional?: boolean };
  projected?: { sources: ProjectedSource[] };
}

interface ProjectedSource {
  serviceAccountToken?: { path: string; expirationSeconds?: number; audience?: string };
  configMap?: { name: string; items?: Items };
  secret?: { name: string; items?: Items };
  downwardAPI?: { items: Array<{ path: string; fieldRef?: { fieldPath: string } }> };
}

export class VolumeError extends Error {}

/** Creates every volume of `pod` under `dir`; returns volume name → host directory. */
export async function materialiseVolumes(
  client: KubeClient,
  pod: KubeObject,
  dir: string,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const namespace = pod.metadata.namespace ?? "default";
  for (const volume of (pod.spec?.volumes ?? []) as VolumeSpec[]) {
    const path = join(dir, volume.name);
    await mkdir(path, { recursive: true });
    // An emptyDir is world-writable, as the kubelet makes it (mkdir's mode is cut by the umask).
    if (volume.emptyDir) await chmod(path, 0o777);
    out.set(volume.name, path);
    if (volume.configMap) {
      const data = await configMapData(client, namespace, volume.configMap.name, volume.configMap.optional);
      await writeItems(path, data, volume.configMap.items);
    } else if (volume.secret) {
      const data = await secretData(client, namespace, volume.secret.secretName, volume.secret.optional);
      await writeItems(path, data, volume.secret.items);
    } else if (volume.projected) {
      for (const source of volume.projected.sources) await writeProjected(client, pod, path, source);
    } else if (!volume.emptyDir) {
      throw new VolumeError(`volume "${volume.name}" has a type the test bed's pod runner does not support`);
    }
  }
  return out;
}

async function configMapData(
  client: KubeClient,
  namespace: string,
  name: string,
  optional?: boolean,
): Promise<Record<string, Buffer>> {
  const cm = await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace, name });
  if (!cm) {
    if (optional) return {};
    throw new VolumeError(`configmap "${name}" not found`);
  }
  const out: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries((cm.data ?? {}) as Record<string, string>)) out[k] = Buffer.from(v);
  for (const [k, v] of Object.entries((cm.binaryData ?? {}) as Record<string, string>))
    out[k] = Buffer.from(v, "base64");
  return out;
}

async function secretData(
  client: KubeClient,
  namespace: string,
  name: string,
  optional?: boolean,
): Promise<Record<string, Buffer>> {
  const secret = await client.get({ apiVersion: "v1", kind: "Secret", namespace, name });
  if (!secret) {
    if (optional) return {};
    throw new VolumeError(`secret "${name}" not found`);
  }
  const out: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries((secret.data ?? {}) as Record<string, string>))
    out[k] = Buffer.from(v, "base64");
  return out;
}

async function writeItems(dir: string, data: Record<string, Buffer>, items?: Items): Promise<void> {
  const entries = items ? items.map((i) => [i.path, data[i.key]] as const) : Object.entries(data);
  for (const [path, value] of entries) {
    if (value === undefined) throw new VolumeError(`key for "${path}" is missing`);
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, value, { mode: 0o644 });
  }
}

async function writeProjected(client: KubeClient, pod: KubeObject, dir: string, source: ProjectedSource) {
  const namespace = pod.metadata.namespace ?? "default";
  if (source.serviceAccountToken) {
    const token = await requestToken(client, pod, source.serviceAccountToken.expirationSeconds ?? 3607);
    await writeFile(join(dir, source.serviceAccountToken.path), token, { mode: 0o644 });
  }
  if (source.configMap) {
    await writeItems(
      dir,
      await configMapData(client, namespace, source.configMap.name),
      source.configMap.items,
    );
  }
  if (source.secret) {
    await writeItems(dir, await secretData(client, namespace, source.secret.name), source.secret.items);
  }
  for (const item of source.downwardAPI?.items ?? []) {
    const value = fieldValue(pod, item.fieldRef?.fieldPath ?? "");
    await writeFile(join(dir, item.path), value, { mode: 0o644 });
  }
}

/** A token for the pod's service account, bound to the pod (what the kubelet mounts). */
export async function requestToken(
  client: KubeClient,
  pod: KubeObject,
  expirationSeconds: number,
): Promise<string> {
  const namespace = pod.metadata.namespace ?? "default";
  const sa = (pod.spec?.serviceAccountName as string | undefined) ?? "default";
  const { body } = await client.callWithStatus({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`,
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {
        expirationSeconds,
        boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata.name, uid: pod.metadata.uid },
      },
    },
    verb: "create",
    resource: "serviceaccounts/token",
    namespace,
    name: sa,
  });
  return (body as { status: { token: string } }).status.token;
}

/** The downward API fields the runner supports (those OLM's and tsop's pods use). */
export function fieldValue(pod: KubeObject, fieldPath: string): string {
  const labels = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (labels) return (pod.metadata[labels[1] as "labels"] ?? {})[labels[2]!] ?? "";
  switch (fieldPath) {
    case "metadata.name":
      return pod.metadata.name ?? "";
    case "metadata.namespace":
      return pod.metadata.namespace ?? "";
    case "metadata.uid":
      return pod.metadata.uid ?? "";
    case "spec.serviceAccountName":
      return (pod.spec?.serviceAccountName as string) ?? "default";
    case "spec.nodeName":
      return (pod.spec?.nodeName as string) ?? "";
    case "status.podIP":
      return (pod.status?.podIP as string) ?? "";
    default:
      return "";
  }
}
