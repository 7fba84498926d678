// The operator's entry point: a Manager running the CronJob controller on the real clock.
import { MANAGER_FLAGS_HELP, Manager, managerOptionsFromArgs } from "tsop";
import { CronJobReconciler } from "./controllers/cronjob.controller.js";

const options = managerOptionsFromArgs(process.argv.slice(2), process.env, {
  leaderElection: { enabled: false, id: "cronjob-tutorial.tutorial.kubebuilder.io" },
});
if (options.help) {
  console.log(MANAGER_FLAGS_HELP);
  process.exit(0);
}
const manager = await Manager.create(options);
await CronJobReconciler.setup(manager);
await manager.start(); // until SIGTERM or SIGINT
