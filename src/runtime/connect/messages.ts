// User-facing text of cluster access (kubeconfig, credentials, API errors), shared by the operator
// library and the CLI, in one place so tests can match it.

export interface Message {
  message: string;
  hint?: string;
}

/** What an RBAC 403 names: who was refused which verb on which resource where. */
export interface RefusedRequest {
  user: string;
  verb: string;
  group: string;
  /** "resource" or "resource/subresource", as RBAC rules name it. */
  resource: string;
  /** "" at the cluster scope. */
  namespace: string;
}

export const messages = {
  noKubeconfig: (): Message => ({
    message:
      "no kubeconfig found: --kubeconfig is not set, KUBECONFIG is empty, ~/.kube/config does not exist and tsop is not running in a cluster",
    hint: "point --kubeconfig or KUBECONFIG at a kubeconfig file (e.g. the one `kind` or your cloud CLI writes)",
  }),
  kubeconfigMissing: (file: string): Message => ({
    message: `kubeconfig file ${file} does not exist`,
    hint: "check the --kubeconfig path",
  }),
  kubeconfigInvalid: (file: string, detail: string): Message => ({
    message: `kubeconfig ${file} is not valid: ${detail}`,
    hint: "fix the file (compare with `kubectl config view`), or point --kubeconfig at another one",
  }),
  noContext: (available: string[]): Message => ({
    message: "the kubeconfig has no current context",
    hint:
      available.length > 0
        ? `choose one with --context (${available.join(", ")})`
        : "the kubeconfig defines no contexts; add one with `kubectl config set-context`",
  }),
  unknownContext: (name: string, available: string[]): Message => ({
    message: `context "${name}" is not in the kubeconfig`,
    hint:
      available.length > 0 ? `known contexts: ${available.join(", ")}` : "the kubeconfig defines no contexts",
  }),
  contextIncomplete: (context: string, what: "cluster" | "user", name: string): Message => ({
    message: `context "${context}" refers to ${what} "${name}", which the kubeconfig does not define`,
    hint: "fix the context with `kubectl config set-context`",
  }),
  unreachable: (server: string, context: string, detail: string): Message => ({
    message: `cannot reach the Kubernetes API server at ${server} (context "${context}"): ${detail}`,
    hint: "check that the cluster is running and that --kubeconfig/--context select the right one (kubectl cluster-info)",
  }),
  unauthorized: (server: string, user: string): Message => ({
    message: `the API server at ${server} rejected the credentials of user "${user}" (401 Unauthorized)`,
    hint: "the credentials have probably expired: log in again (refresh the token or rerun your cloud CLI's login) and retry",
  }),
  forbidden: (
    user: string,
    verb: string,
    resource: string,
    namespace: string | undefined,
    detail: string,
  ): Message => ({
    message: `forbidden: user "${user}" may not ${verb} ${resource}${namespace ? ` in namespace "${namespace}"` : " at cluster scope"}${detail ? ` (${detail})` : ""}`,
    hint: `ask a cluster administrator for RBAC permission to ${verb} ${resource}, or use a context with more rights`,
  }),
  /** An RBAC 403 the operator can fix itself: the @Rbac line that grants the refused request. */
  rbacRuleMissing: (refused: RefusedRequest): Message => {
    const verbs = refused.verb === "list" || refused.verb === "watch" ? ["list", "watch"] : [refused.verb];
    const list = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(", ")}]`;
    const decorator = `@Rbac({ groups: ${list([refused.group])}, resources: ${list([refused.resource])}, verbs: ${list(verbs)} })`;
    const where = refused.namespace ? `in namespace "${refused.namespace}"` : "at the cluster scope";
    return {
      message: `RBAC refused ${refused.verb} on ${refused.resource} in API group "${refused.group}" ${where} to ${refused.user}: add ${decorator} to a controller`,
      hint: "then run `tsop generate` and apply config/rbac (or rebuild the bundle): the manager's role is generated from the @Rbac declarations",
    };
  },
  noKindMatch: (apiVersion: string, kind: string): Message => ({
    message: `the API server does not serve kind ${kind} in ${apiVersion}`,
    hint: "install the CustomResourceDefinition that defines it first (tsop install / kubectl apply -f config/crd/bases)",
  }),
  execFailed: (command: string, detail: string): Message => ({
    message: `the credential plugin "${command}" failed: ${detail}`,
    hint: "run the plugin yourself to see why (it may need a fresh login), then retry",
  }),
  execNeedsTerminal: (command: string): Message => ({
    message: `the credential plugin "${command}" needs an interactive terminal (interactiveMode: Always), but tsop is not running in one`,
    hint: "log in once from a terminal so the plugin caches a token, or use a non-interactive credential",
  }),
  execTimeout: (command: string, seconds: number): Message => ({
    message: `the credential plugin "${command}" did not answer within ${seconds}s`,
    hint: "it may be waiting for input it cannot get; log in from a terminal first",
  }),
  invalid: (what: string, detail: string): Message => ({
    message: `the API server rejected ${what}: ${detail}`,
    hint: "fix the object named above and retry",
  }),
  serverError: (what: string, code: number, detail: string, attempts: number): Message => ({
    message: `the API server kept failing on ${what}: ${code} ${detail} (after ${attempts} attempts)`,
    hint: "the cluster may be overloaded or unhealthy; retry later",
  }),
};
