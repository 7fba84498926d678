// A lock held by one process on this machine at a time, for test beds that take host-wide
// resources: OLM's operators listen on fixed host ports (:8080) in the pod runner, so two OLM beds
// (parallel real-tier lanes, several checkouts) cannot run at once. The lock is a listening socket
// on a fixed loopback port: the kernel gives it to one process only and takes it back when that
// process exits, however it exits, so there is no stale lock to detect. Waiting is unbounded: the
// caller's own timeout (vitest's hook timeout) bounds it and names the test.
import { createServer, type Server } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** The locks by name, each a port of its own (outside the ephemeral range the beds' ports come from). */
const LOCK_PORTS = { "olm-bed": 28_080 } as const;
/**
 * The lanes of `npm run test:real` (scripts/test-real.mjs) whose files take each lock: "olm-ns" runs
 * in a network namespace of its own, where the lock's port (and OLM's) is its own too.
 */
const LOCK_LANES: Record<keyof typeof LOCK_PORTS, readonly string[]> = { "olm-bed": ["olm", "olm-ns"] };

export interface MachineLock {
  release(): Promise<void>;
}

export async function acquireMachineLock(
  name: keyof typeof LOCK_PORTS,
  log?: (message: string) => void,
): Promise<MachineLock> {
  const port = LOCK_PORTS[name];
  // In the other lane, waiting would last as long as the olm lane's current file holds the lock:
  // a misplaced file fails here, naming the cause, instead of timing out by chance.
  const lane = process.env.TSOP_TEST_LANE;
  if (lane !== undefined && !LOCK_LANES[name].includes(lane)) {
    throw new Error(
      `the machine lock "${name}" is taken in the "${lane}" lane of npm run test:real; only the ` +
        `${LOCK_LANES[name].map((l) => `"${l}"`).join(" and ")} lanes' files may take it. scripts/test-real.mjs puts a file there when its ` +
        `imports (or the package.json scripts it reads) reach test/support/olm-rig.ts`,
    );
  }
  let told = false;
  for (;;) {
    const server = await listen(port);
    if (server) {
      server.unref(); // holding the lock never keeps the process alive
      return { release: () => new Promise((resolve) => server.close(() => resolve())) };
    }
    if (!told) {
      log?.(`waiting for the machine lock "${name}" (127.0.0.1:${port}): another test bed holds it`);
      told = true;
    }
    await sleep(500);
  }
}

function listen(port: number): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" ? resolve(undefined) : reject(error),
    );
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => resolve(server));
  });
}
