// The cluster layer's user-facing text lives with the runtime's cluster access (one wording for the
// CLI and the operator library).
export { type Message, messages } from "../runtime/messages.js";
