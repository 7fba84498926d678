// The cluster layer's user-facing text lives with the runtime's cluster access (one wording for the
// CLI and the operator library); what only the CLI's client says is added here.
import { type Message, messages as runtimeMessages } from "../runtime/connect/messages.js";

export type { Message };

export const messages = {
  ...runtimeMessages,
  notKubernetes: (server: string, context: string, answer: string): Message => ({
    message: `the server at ${server} (context "${context}") does not look like a Kubernetes API server: ${answer}`,
    hint: "check the server URL and port in the kubeconfig (kubectl config view --minify), or choose another context with --context",
  }),
};
