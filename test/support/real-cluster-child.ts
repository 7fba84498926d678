// A process that starts the real control plane, prints its component pids and directory as one
// JSON line, and then waits to be killed (the SIGKILL clean-up test kills it without warning).
import { startTestCluster } from "../../src/testing/index.js";

const cluster = await startTestCluster({
  controlPlane: "real",
  workloads: process.argv.includes("--workloads"),
});
process.stdout.write(`${JSON.stringify({ processes: cluster.processes(), dataDir: cluster.dataDir })}\n`);
setInterval(() => undefined, 60_000);
