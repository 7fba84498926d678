// The CLI's view of a kubeconfig: the runtime's loader (kubectl's file precedence and merge rules,
// in-cluster only without any file) plus the -n override and the interactivity the credential
// plugins need. Everything else about loading lives in runtime/connect/kubeconfig.ts.
import { delimiter } from "node:path";
import { type ClusterConfig, loadKubeConfig, type UserConfig } from "../runtime/connect/kubeconfig.js";

export { kubeconfigFiles } from "../runtime/connect/kubeconfig.js";

export interface ConnectionOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  env?: NodeJS.ProcessEnv;
  /** Whether a person could answer an interactive credential plugin (stdin and stderr are a TTY). */
  interactive?: boolean;
  /** Root under which the in-cluster service account files live (tests; default "/"). */
  serviceAccountRoot?: string;
}

/** Everything needed to talk to one cluster as one user. */
export interface Connection {
  contextName: string;
  namespace: string;
  cluster: ClusterConfig;
  user: UserConfig;
  /** Where it came from, for messages and child processes: "in-cluster service account" or the files. */
  source: string;
  interactive: boolean;
  env: NodeJS.ProcessEnv;
}

export async function loadConnection(options: ConnectionOptions = {}): Promise<Connection> {
  const env = options.env ?? process.env;
  const loaded = await loadKubeConfig({
    kubeconfig: options.kubeconfig,
    context: options.context,
    env,
    inClusterRoot: options.serviceAccountRoot,
    inCluster: "last",
  });
  return {
    contextName: loaded.contextName,
    namespace: options.namespace?.trim() || loaded.namespace || "default",
    cluster: loaded.cluster,
    user: loaded.user,
    source: loaded.inCluster ? loaded.source : loaded.files.join(delimiter),
    interactive: options.interactive ?? false,
    env,
  };
}
