// runAsOperator(): the identity an operator has in a cluster, for tests. It applies the RBAC
// manifests of the project (config/rbac: the ServiceAccount, the Roles `tsop generate` wrote from
// @Rbac, their bindings) into a namespace, the way `kustomize build config/default` would set it,
// and writes a kubeconfig that impersonates that ServiceAccount. The in-memory server authorizes
// impersonated requests by RBAC, as the real kube-apiserver does; so a reconciler that needs a rule
// its @Rbac does not declare meets the same 403 in `npm test` as in a cluster.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseYamlDocuments } from "../common/yaml/read.js";

/** What runAsOperator needs of a test cluster (in-memory or real): its URL, CA and an admin's token. */
export interface ClusterAccess {
  url: string;
  caCertificate?: string;
  /** A bearer token of a user allowed to impersonate and to create RBAC objects (the admin's). */
  token: string;
  /** The admin kubeconfig's file: the operator's kubeconfig is written beside it (removed by stop()). */
  kubeconfigPath: string;
}

export interface RunAsOperatorOptions {
  /** The RBAC manifests (default: config/rbac under the current directory). */
  rbacDir?: string;
  /** The namespace the operator runs in: its ServiceAccount, Roles and RoleBindings go there (default "default"). */
  namespace?: string;
}

export interface OperatorIdentity {
  /** system:serviceaccount:<namespace>:<name> */
  user: string;
  groups: string[];
  namespace: string;
  serviceAccount: string;
  /** Kubeconfig YAML that impersonates the ServiceAccount (the admin's credentials, `as:` the operator). */
  kubeconfig: string;
  /** The kubeconfig written to a file (removed with the cluster's own by stop()). */
  kubeconfigPath: string;
}

const RBAC_KINDS = new Set(["ServiceAccount", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are arbitrary YAML
type Manifest = Record<string, any>;

/**
 * Applies the project's RBAC manifests to the cluster and returns a kubeconfig that acts as the
 * operator's ServiceAccount: requests made with it are allowed exactly what those Roles allow.
 */
export async function runAsOperator(
  cluster: ClusterAccess,
  options: RunAsOperatorOptions = {},
): Promise<OperatorIdentity> {
  const dir = resolve(options.rbacDir ?? "config/rbac");
  const namespace = options.namespace ?? "default";
  const objects = (await readRbacManifests(dir)).map((o) => inNamespace(o, namespace));
  const accounts = objects.filter((o) => o.kind === "ServiceAccount").map((o) => String(o.metadata?.name));
  if (accounts.length !== 1) {
    throw new Error(
      `${dir}: expected one ServiceAccount (the operator's) in the RBAC manifests, found ${accounts.length ? accounts.join(", ") : "none"}; ` +
        "the scaffold writes config/rbac/service_account.yaml",
    );
  }
  const serviceAccount = accounts[0]!;
  await apply(cluster, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  for (const object of objects) await apply(cluster, object);
  const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
  const kubeconfig = impersonatingKubeconfig(cluster, user, namespace);
  const kubeconfigPath = join(dirname(cluster.kubeconfigPath), `kubeconfig-${namespace}-${serviceAccount}`);
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  return {
    user,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
    namespace,
    serviceAccount,
    kubeconfig,
    kubeconfigPath,
  };
}

/** The RBAC objects of every *.yaml file in dir (kustomization.yaml and other kinds left out). */
async function readRbacManifests(dir: string): Promise<Manifest[]> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  } catch (error) {
    throw new Error(
      `cannot read the RBAC manifests in ${dir} (${(error as Error).message}); run the test from the project's root, or pass rbacDir`,
    );
  }
  const objects: Manifest[] = [];
  for (const file of files) {
    const path = join(dir, file);
    for (const { value } of parseYamlDocuments(await readFile(path, "utf8"), path)) {
      const o = value as Manifest | null;
      if (o && typeof o === "object" && RBAC_KINDS.has(String(o.kind))) objects.push(o);
    }
  }
  return objects;
}

/** The object as kustomize's namespace transformer leaves it: namespaced kinds and ServiceAccount subjects in `namespace`. */
function inNamespace(object: Manifest, namespace: string): Manifest {
  const copy = structuredClone(object);
  copy.metadata ??= {};
  if (copy.kind === "ServiceAccount" || copy.kind === "Role" || copy.kind === "RoleBinding") {
    copy.metadata.namespace = namespace;
  }
  for (const subject of copy.subjects ?? []) {
    if (subject.kind === "ServiceAccount") subject.namespace = namespace;
  }
  return copy;
}

function pluralOf(kind: string): string {
  return kind === "ServiceAccount"
    ? "serviceaccounts"
    : kind === "Namespace"
      ? "namespaces"
      : `${kind.toLowerCase()}s`;
}

/** Creates the object, or replaces the one of that name. */
async function apply(cluster: ClusterAccess, object: Manifest): Promise<void> {
  const apiVersion = String(object.apiVersion);
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = object.metadata?.namespace;
  const collection = `${base}${ns ? `/namespaces/${ns}` : ""}/${pluralOf(String(object.kind))}`;
  const created = await call(cluster, "POST", collection, object);
  if (created.status < 300 || (created.status === 409 && object.kind === "Namespace")) return;
  if (created.status !== 409) throw applyError(object, created);
  const path = `${collection}/${encodeURIComponent(String(object.metadata.name))}`;
  const live = await call(cluster, "GET", path);
  const resourceVersion = (live.body as Manifest | undefined)?.metadata?.resourceVersion;
  const replaced = await call(cluster, "PUT", path, {
    ...object,
    metadata: { ...object.metadata, resourceVersion },
  });
  if (replaced.status >= 300) throw applyError(object, replaced);
}

function applyError(object: Manifest, answer: { status: number; body: unknown }): Error {
  const message = (answer.body as Manifest | undefined)?.message ?? JSON.stringify(answer.body);
  return new Error(`cannot apply ${object.kind} ${object.metadata?.name}: ${answer.status} ${message}`);
}

function call(
  cluster: ClusterAccess,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, cluster.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolvePromise, reject) => {
    const req = send(
      url,
      {
        method,
        ...(cluster.caCertificate ? { ca: cluster.caCertificate } : {}),
        headers: {
          Authorization: `Bearer ${cluster.token}`,
          Accept: "application/json",
          ...(text === undefined ? {} : { "Content-Type": "application/json" }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = raw;
          try {
            parsed = JSON.parse(raw);
          } catch {
            // a non-JSON answer is reported as its text
          }
          resolvePromise({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

function impersonatingKubeconfig(cluster: ClusterAccess, user: string, namespace: string): string {
  const trust = cluster.caCertificate
    ? `    certificate-authority-data: ${Buffer.from(cluster.caCertificate).toString("base64")}`
    : "    insecure-skip-tls-verify: true";
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: tsop-test",
    "  cluster:",
    `    server: ${cluster.url}`,
    trust,
    "contexts:",
    "- name: operator",
    "  context:",
    "    cluster: tsop-test",
    "    user: operator",
    `    namespace: ${namespace}`,
    "current-context: operator",
    "users:",
    "- name: operator",
    "  user:",
    `    token: ${cluster.token}`,
    `    as: ${JSON.stringify(user)}`,
    "",
  ].join("\n");
}
