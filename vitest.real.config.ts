// The real-component tier: tests named *.real.test.ts run against the real kube-apiserver, etcd,
// controller-manager, scheduler, kwok, OLM, opm and the peer tools, built from Go modules by the
// rig (scripts/rig). The global setup builds whatever is missing and fails the run loudly when it
// cannot; no test here skips because a binary is absent.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.real.test.ts"],
    globalSetup: ["test/support/rig-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: "forks",
    // Each file starts its own control plane: one at a time per run. `npm run test:real`
    // (scripts/test-real.mjs) runs two such runs side by side, the files that start OLM in one.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
