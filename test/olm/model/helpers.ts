// Small helpers for the OLM model's tests: record the phases an object passes through, create
// namespaces and operator groups.
import type { KubeClient } from "../../../src/kube/client.js";
import type { KObj, TestCluster } from "../../../src/testing/index.js";

export const V1A1 = "operators.coreos.com/v1alpha1";

/** Records every distinct value of `pick(obj)` until `until` holds (checked on every change). */
export async function record(
  cluster: TestCluster,
  apiVersion: string,
  kind: string,
  name: string,
  namespace: string | undefined,
  pick: (obj: KObj | undefined) => string,
  until: (obj: KObj | undefined) => boolean,
  timeoutMs = 15_000,
): Promise<{ seen: string[]; last: KObj | undefined }> {
  const seen: string[] = [];
  const last = await cluster.waitFor(
    apiVersion,
    kind,
    name,
    namespace,
    (obj) => {
      const value = pick(obj);
      if (seen.at(-1) !== value) seen.push(value);
      return until(obj);
    },
    timeoutMs,
  );
  return { seen, last };
}

export const phaseOf = (obj: KObj | undefined) =>
  obj ? `${obj.status?.phase ?? ""}/${obj.status?.reason ?? ""}` : "<absent>";

export async function namespace(client: KubeClient, name: string): Promise<void> {
  await client.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

export async function operatorGroup(
  client: KubeClient,
  ns: string,
  name: string,
  targetNamespaces?: string[],
): Promise<void> {
  await client.apply({
    apiVersion: "operators.coreos.com/v1",
    kind: "OperatorGroup",
    metadata: { name, namespace: ns },
    spec: targetNamespaces ? { targetNamespaces } : {},
  });
}
