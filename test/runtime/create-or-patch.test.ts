// createOrPatch (controller-runtime's CreateOrPatch) against the in-memory server: what it sends
// for each OperationResult, and that neither patch writes away another writer's fields.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { createOrPatch } from "../../src/runtime/controllerutil/create-or-patch.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { installWidgetCrd, type Widget, WIDGET } from "./support/trust-writes.js";

let cluster: TestCluster;
let rest: RestClient;
let client: Client;
beforeAll(async () => {
  cluster = await startTestCluster();
  const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
  await installWidgetCrd(client);
});
afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

const widget = (name: string): Widget => ({ ...WIDGET, metadata: { name, namespace: "default" } });
const writesSince = (start: number) =>
  cluster.requests
    .slice(start)
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path.replace("/apis/trust.example.com/v1/namespaces/default/", "")}`);

describe("createOrPatch", () => {
  it("reports created, updated, updatedStatus, updatedStatusOnly and unchanged, with one write per part changed", async () => {
    let start = cluster.requests.length;
    const created = await createOrPatch(client, widget("w"), (w) => {
      w.spec = { size: 1 };
    });
    expect(created.operation).toBe("created");
    expect(writesSince(start)).toEqual(["POST widgets"]);

    start = cluster.requests.length;
    const updated = await createOrPatch(client, widget("w"), (w) => {
      w.spec = { ...w.spec, size: 2 };
    });
    expect(updated.operation).toBe("updated");
    expect(writesSince(start)).toEqual(["PATCH widgets/w"]);

    start = cluster.requests.length;
    const both = await createOrPatch(client, widget("w"), (w) => {
      w.spec = { ...w.spec, size: 3 };
      w.status = { observedGeneration: 3 };
    });
    expect(both.operation).toBe("updatedStatus");
    expect(writesSince(start)).toEqual(["PATCH widgets/w", "PATCH widgets/w/status"]);
    expect(both.object.status).toEqual({ observedGeneration: 3 });
    expect(both.object.spec).toEqual({ size: 3 });

    start = cluster.requests.length;
    const statusOnly = await createOrPatch(client, widget("w"), (w) => {
      w.status = { observedGeneration: 4 };
    });
    expect(statusOnly.operation).toBe("updatedStatusOnly");
    expect(writesSince(start)).toEqual(["PATCH widgets/w/status"]);

    start = cluster.requests.length;
    const same = await createOrPatch(client, widget("w"), (w) => {
      w.spec = { size: 3 };
      w.status = { observedGeneration: 4 };
    });
    expect(same.operation).toBe("unchanged");
    expect(writesSince(start)).toEqual([]);
    const stored = await client.get<Widget>(WIDGET, { namespace: "default", name: "w" });
    expect(stored?.spec).toEqual({ size: 3 });
    expect(stored?.status).toEqual({ observedGeneration: 4 });
  });

  it("patches only what mutate changed: another writer's field stays", async () => {
    await client.create<Widget>({ ...widget("keep"), spec: { size: 1, extra: "theirs" } });
    const out = await createOrPatch(client, widget("keep"), (w) => {
      w.spec = { ...w.spec, size: 5 };
      w.status = { observedGeneration: 1 };
    });
    expect(out.operation).toBe("updatedStatus");
    const stored = await client.get<Widget>(WIDGET, { namespace: "default", name: "keep" });
    expect(stored?.spec).toEqual({ size: 5, extra: "theirs" });
  });

  it("retries from a fresh read when the object changed between read and status patch", async () => {
    await client.create<Widget>(widget("race"));
    let calls = 0;
    const out = await createOrPatch(client, widget("race"), async (w) => {
      calls++;
      if (calls === 1) {
        // Another writer changes the object after our read.
        const live = (await client.get<Widget>(WIDGET, { namespace: "default", name: "race" }))!;
        await client.update({ ...live, spec: { extra: "theirs" } });
      }
      w.status = { observedGeneration: 7 };
    });
    expect(calls).toBe(2);
    expect(out.operation).toBe("updatedStatusOnly");
    const stored = await client.get<Widget>(WIDGET, { namespace: "default", name: "race" });
    expect(stored?.spec).toEqual({ extra: "theirs" });
    expect(stored?.status).toEqual({ observedGeneration: 7 });
  });

  it("names what it needs", async () => {
    await expect(createOrPatch(client, { ...WIDGET, metadata: {} }, () => {})).rejects.toThrow(
      /createOrPatch needs apiVersion, kind and metadata.name/,
    );
  });
});
