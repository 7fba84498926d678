// Periodic resync is jittered (issue 38): each resync comes after the period × [0.9, 1.1), drawn
// each time as controller-runtime's cache draws it, so informers started together do not all
// re-deliver their objects at the same instant.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Informer, jitteredResyncDelay } from "../../src/runtime/cache/informer.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const CONFIGMAPS = {
  apiVersion: "v1",
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("jitteredResyncDelay", () => {
  it("stays within [0.9, 1.1) of the period and spreads over the range", () => {
    const period = 10 * 3600_000;
    expect(jitteredResyncDelay(period, () => 0)).toBe(0.9 * period);
    expect(jitteredResyncDelay(period, () => 0.5)).toBe(period);
    expect(jitteredResyncDelay(period, () => 0.999_999)).toBeLessThan(1.1 * period);
    const draws = Array.from({ length: 2000 }, () => jitteredResyncDelay(period));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0.9 * period);
    expect(Math.max(...draws)).toBeLessThan(1.1 * period);
    // Spread: both ends of the range are reached, so two informers rarely resync together.
    expect(Math.min(...draws)).toBeLessThan(0.92 * period);
    expect(Math.max(...draws)).toBeGreaterThan(1.08 * period);
    expect(new Set(draws).size).toBeGreaterThan(1900);
  });
});

async function firstResyncAfterStart(c: TestCluster, random: number): Promise<number> {
  const loaded = await loadKubeConfig({ kubeconfigText: c.kubeconfig });
  const rest = new RestClient(loaded.server, loaded);
  const inf = new Informer(rest, CONFIGMAPS, {
    logger: new Logger({ sink: { write: () => {} } }),
    resyncPeriodMs: 3000,
    namespace: "default",
  });
  cleanups.push(async () => {
    await inf.stop();
    rest.close();
  });
  let resyncAt = 0;
  inf.addHandler({
    onUpdate: (old, obj) => void (old === obj && !resyncAt && (resyncAt = performance.now())),
  });
  vi.spyOn(Math, "random").mockReturnValue(random);
  const startedAt = performance.now();
  inf.start();
  vi.restoreAllMocks();
  await waitFor("a resync", () => resyncAt > 0, 8000, 5);
  return resyncAt - startedAt;
}

describe("informer resync", () => {
  it("fires after the jittered delay, not the bare period", async () => {
    const c = await startTestCluster();
    cleanups.push(() => c.stop());
    c.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "one", namespace: "default" } });
    // Both at once: the bare period would fire both at 3000 ms. Timers may fire late on a busy
    // machine, never early, so the check is on the lower bounds and on the gap between the two.
    const [early, late] = await Promise.all([
      firstResyncAfterStart(c, 0), // 0.9 × 3000 ms
      firstResyncAfterStart(c, 0.99), // 1.098 × 3000 ms
    ]);
    expect(early).toBeGreaterThanOrEqual(2695);
    expect(late).toBeGreaterThanOrEqual(3290);
    expect(late - early).toBeGreaterThanOrEqual(400); // 594 ms apart; 0 without jitter
  });
});
