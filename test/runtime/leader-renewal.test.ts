// Leader election at client-go's cost, counted at the server: a leader on a valid lease renews with
// one PUT of the lease it last saw (no GET); when someone else changed the lease meanwhile the PUT
// conflicts and the leader reads the lease again before renewing; releasing is one PUT too.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { LeaderElector } from "../../src/runtime/manager/leader.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/default/leases/renewal-test";

let cluster: TestCluster | undefined;
let rest: RestClient | undefined;
afterEach(async () => {
  rest?.close();
  await cluster?.stop();
  cluster = rest = undefined;
});

async function elector(): Promise<{ elector: LeaderElector; client: Client; cluster: TestCluster }> {
  cluster = await startTestCluster();
  const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  const client = new Client(rest, new RestMapper(rest));
  const log = new Logger({ level: "error", sink: { write: () => {} } });
  const e = new LeaderElector(
    client,
    {
      id: "renewal-test",
      namespace: "default",
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 0.01,
    },
    log,
  );
  return { elector: e, client, cluster };
}

/** The lease requests since index `from`, as "METHOD status". */
function leaseRequests(c: TestCluster, from: number): string[] {
  return c.requests
    .slice(from)
    .filter((r) => r.path.split("?")[0] === LEASE_PATH)
    .map((r) => `${r.method} ${r.status}`);
}

describe("lease renewal", () => {
  it("renews with one PUT per renewal while leading, and releases with one PUT", async () => {
    const { elector: e, cluster: c } = await elector();
    const stop = new AbortController();
    expect(await e.acquire(stop.signal)).toBe(true);
    const from = c.requests.length;
    const holding = e.holdUntil(stop.signal);
    const renewals = 20;
    await waitFor("20 renewals", () => leaseRequests(c, from).length >= renewals);
    stop.abort();
    await holding;
    const seen = leaseRequests(c, from);
    expect(seen.length).toBeGreaterThanOrEqual(renewals);
    expect(new Set(seen)).toEqual(new Set(["PUT 200"]));
    const beforeRelease = c.requests.length;
    await e.release();
    expect(leaseRequests(c, beforeRelease)).toEqual(["PUT 200"]);
    expect(c.get("coordination.k8s.io/v1", "Lease", "renewal-test", "default")?.spec).toMatchObject({
      holderIdentity: "",
    });
  });

  it("a lease changed behind the leader's back: the PUT conflicts, the leader reads it and renews", async () => {
    const { elector: e, client, cluster: c } = await elector();
    const stop = new AbortController();
    expect(await e.acquire(stop.signal)).toBe(true);
    // Someone else writes the lease (an annotation) before the next renewal: its resourceVersion moves on.
    const lease = await client.get<{ metadata: { annotations?: Record<string, string> } }>(
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease" },
      { namespace: "default", name: "renewal-test" },
    );
    if (!lease) throw new Error("no lease");
    lease.metadata.annotations = { touched: "yes" };
    await client.update(lease as never);
    const from = c.requests.length;
    const holding = e.holdUntil(stop.signal);
    await waitFor("a renewal after the conflict", () => leaseRequests(c, from).includes("PUT 200"));
    stop.abort();
    await holding;
    const seen = leaseRequests(c, from);
    expect(seen.slice(0, 3)).toEqual(["PUT 409", "GET 200", "PUT 200"]);
    expect(new Set(seen.slice(3))).toEqual(new Set(seen.length > 3 ? ["PUT 200"] : []));
    expect(e.isLeader()).toBe(true);
    expect(
      c.get("coordination.k8s.io/v1", "Lease", "renewal-test", "default")?.metadata?.annotations,
    ).toEqual({
      touched: "yes",
    });
  });
});
