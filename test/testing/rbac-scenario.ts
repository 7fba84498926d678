// One RBAC scenario run against the in-memory server (test/testing/rbac.test.ts) and, as the
// oracle, the real kube-apiserver (test/testing/real/rbac.real.test.ts): the operator's RBAC
// manifests applied by runAsOperator, then requests as its ServiceAccount through impersonation.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClusterAccess, type OperatorIdentity, runAsOperator } from "../../src/testing/index.js";
import { http, type Reachable } from "./helpers.js";

export const NAMESPACE = "rbac-x";
export const SA_USER = `system:serviceaccount:${NAMESPACE}:controller-manager`;

/** config/rbac as the scaffold and `tsop generate` write it (in namespace "system", renamed by runAsOperator). */
const MANIFESTS: Record<string, string> = {
  "service_account.yaml": `apiVersion: v1
kind: ServiceAccount
metadata:
  name: controller-manager
  namespace: system
`,
  "role.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get]
- apiGroups: [apps]
  resources: [deployments]
  verbs: [list, watch]
- apiGroups: [apps]
  resources: [deployments/status]
  verbs: [get]
- apiGroups: ["*"]
  resources: ["*/scale"]
  verbs: [get]
- apiGroups: [""]
  resources: [secrets]
  resourceNames: [allowed]
  verbs: [get]
`,
  "role_binding.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: manager-role
subjects:
- kind: ServiceAccount
  name: controller-manager
  namespace: system
`,
  "leader_election_role.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: leader-election-role
  namespace: system
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: ["*"]
`,
  "leader_election_role_binding.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: leader-election-rolebinding
  namespace: system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: leader-election-role
subjects:
- kind: ServiceAccount
  name: controller-manager
  namespace: system
`,
  "kustomization.yaml": "resources: [service_account.yaml, role.yaml, role_binding.yaml]\n",
};

export async function writeRbacDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-rbac-"));
  for (const [file, text] of Object.entries(MANIFESTS)) await writeFile(join(dir, file), text);
  return dir;
}

export interface Outcome {
  request: string;
  status: number;
  message?: string;
}

const ns = `/namespaces/${NAMESPACE}`;
/** Each request: method, path, and a body for writes. */
const REQUESTS: Array<[string, string, unknown?]> = [
  ["GET", `/api/v1${ns}/configmaps`],
  ["GET", `/api/v1${ns}/configmaps?watch=true&timeoutSeconds=1`],
  ["GET", `/api/v1${ns}/configmaps/absent`],
  ["POST", `/api/v1${ns}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }],
  ["GET", "/apis/apps/v1/deployments"],
  ["GET", `/apis/apps/v1${ns}/deployments/absent`],
  ["GET", `/apis/apps/v1${ns}/deployments/absent/status`],
  [
    "PUT",
    `/apis/apps/v1${ns}/deployments/absent/status`,
    { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "absent" } },
  ],
  ["GET", `/apis/apps/v1${ns}/deployments/absent/scale`],
  ["GET", `/api/v1${ns}/secrets/allowed`],
  ["GET", `/api/v1${ns}/secrets/other`],
  ["GET", `/apis/coordination.k8s.io/v1${ns}/leases`],
  ["GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases"],
];

/** Applies the manifests and makes every request as the ServiceAccount; answers' statuses and 403 messages. */
export async function runScenario(
  cluster: ClusterAccess & Reachable,
): Promise<{ identity: OperatorIdentity; outcomes: Outcome[] }> {
  const identity = await runAsOperator(cluster, { rbacDir: await writeRbacDir(), namespace: NAMESPACE });
  const outcomes: Outcome[] = [];
  for (const [method, path, body] of REQUESTS) {
    const answer = await http(cluster, method, path, body, {
      headers: { "Impersonate-User": identity.user },
    });
    outcomes.push({
      request: `${method} ${path}`,
      status: answer.status,
      ...(answer.status === 403 ? { message: answer.body?.message } : {}),
    });
  }
  return { identity, outcomes };
}

const forbidden = (what: string, verb: string, resource: string, group: string, namespace: string) =>
  `${what} is forbidden: User "${SA_USER}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${namespace}"`;

/** What kube-apiserver answers (the real-tier test holds both servers to it). */
export const EXPECTED: Outcome[] = [
  {
    request: `GET /api/v1${ns}/configmaps`,
    status: 403,
    message: forbidden("configmaps", "list", "configmaps", "", NAMESPACE),
  },
  {
    request: `GET /api/v1${ns}/configmaps?watch=true&timeoutSeconds=1`,
    status: 403,
    message: forbidden("configmaps", "watch", "configmaps", "", NAMESPACE),
  },
  { request: `GET /api/v1${ns}/configmaps/absent`, status: 404 },
  {
    request: `POST /api/v1${ns}/configmaps`,
    status: 403,
    message: forbidden("configmaps", "create", "configmaps", "", NAMESPACE),
  },
  { request: "GET /apis/apps/v1/deployments", status: 200 },
  {
    request: `GET /apis/apps/v1${ns}/deployments/absent`,
    status: 403,
    message: forbidden('deployments.apps "absent"', "get", "deployments", "apps", NAMESPACE),
  },
  { request: `GET /apis/apps/v1${ns}/deployments/absent/status`, status: 404 },
  {
    request: `PUT /apis/apps/v1${ns}/deployments/absent/status`,
    status: 403,
    message: forbidden('deployments.apps "absent"', "update", "deployments/status", "apps", NAMESPACE),
  },
  { request: `GET /apis/apps/v1${ns}/deployments/absent/scale`, status: 404 },
  { request: `GET /api/v1${ns}/secrets/allowed`, status: 404 },
  {
    request: `GET /api/v1${ns}/secrets/other`,
    status: 403,
    message: forbidden('secrets "other"', "get", "secrets", "", NAMESPACE),
  },
  { request: `GET /apis/coordination.k8s.io/v1${ns}/leases`, status: 200 },
  {
    request: "GET /apis/coordination.k8s.io/v1/namespaces/default/leases",
    status: 403,
    message: forbidden("leases.coordination.k8s.io", "list", "leases", "coordination.k8s.io", "default"),
  },
];
