// `tsop deploy --replicas N`: how many manager replicas run, for this deploy only (config/manager
// keeps its own count, which `tsop bundle` and `tsop helm` carry). Several replicas are safe only
// with leader election; with --sharding in the manager's args each replica reconciles its share,
// without it one leader reconciles and the others stand by (docs/runtime.md "Sharding").
import { goBoolFlag } from "../common/go-flags.js";
import { InvalidInputError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import { messages } from "./messages.js";
import type { ManagerSpec } from "./project.js";

export function setReplicas(manager: ManagerSpec, replicas: number, reporter: Pick<Reporter, "info">): void {
  const args = Array.isArray(manager.container.args) ? (manager.container.args as unknown[]) : [];
  const sharding = goBoolFlag(args, "sharding") === true;
  if (replicas > 1 && goBoolFlag(args, "leader-elect") !== true) {
    const m = messages.replicasWithoutLeaderElection(replicas, manager.where);
    throw new InvalidInputError(m.message, { hint: m.hint });
  }
  manager.deployment.spec = { ...manager.deployment.spec, replicas };
  if (replicas > 1) reporter.info(messages.replicas(replicas, sharding));
}
