// How perturb() compares two runs' end states (src/testing/perturb/snapshot.ts): what the server
// assigns and generated names are normalised away, the author's ignore paths too, and what is
// left differs field by field in words.
import { describe, expect, it } from "vitest";
import type { Client } from "../../src/runtime/index.js";
import { diffSnapshots, takeSnapshot } from "../../src/testing/perturb/snapshot.js";

const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" };

/** An admin client whose list answers `objects`. */
const lister = (objects: object[]) => ({ list: async () => structuredClone(objects) }) as unknown as Client;

function deployment(name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  return {
    ...DEPLOYMENT,
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${Math.random()}`,
      resourceVersion: String(Math.floor(Math.random() * 1000)),
      creationTimestamp: new Date(Date.now() + Math.random() * 1e9).toISOString(),
      generation: Math.floor(Math.random() * 5),
      managedFields: [{ manager: "x", time: new Date(Date.now() + Math.random() * 1e9).toISOString() }],
      ownerReferences: [{ kind: "Memcached", name: "cache", uid: `owner-${Math.random()}` }],
      ...meta,
    },
    spec: { replicas: 3 },
    status: {
      observedGeneration: Math.floor(Math.random() * 5),
      conditions: [
        {
          type: "Available",
          status: "True",
          lastTransitionTime: new Date(Date.now() + Math.random() * 1e9).toISOString(),
        },
      ],
    },
    ...extra,
  };
}

async function diff(a: object[], b: object[], ignore: string[] = []) {
  return diffSnapshots(
    await takeSnapshot(lister(a), [DEPLOYMENT], ignore),
    await takeSnapshot(lister(b), [DEPLOYMENT], ignore),
  );
}

describe("perturb's comparison", () => {
  it("ignores what the server assigns: resourceVersion, uid, timestamps, managedFields, generation", async () => {
    expect(await diff([deployment("web")], [deployment("web")])).toEqual([]);
  });

  it("names the object and each differing field", async () => {
    expect(await diff([deployment("web")], [deployment("web", { spec: { replicas: 2 } })])).toEqual([
      { object: "Deployment default/web", message: "spec.replicas: 3 (unperturbed) ≠ 2" },
    ]);
  });

  it("reports missing and extra objects", async () => {
    expect(await diff([deployment("web")], [deployment("api")])).toEqual([
      {
        object: "Deployment default/api",
        message: "extra: this run has it (1), the unperturbed run does not",
      },
      { object: "Deployment default/web", message: "missing: the unperturbed run has it, this run does not" },
    ]);
  });

  it("knows generated names by their prefix, counts them, and replaces them where they are quoted", async () => {
    const generated = (name: string) =>
      deployment(
        name,
        { status: { message: `ReplicaSet "${name}-abc" progressed` } },
        { generateName: "web-" },
      );
    expect(await diff([generated("web-x1")], [generated("web-y2")])).toEqual([]);
    expect(await diff([generated("web-x1")], [generated("web-y2"), generated("web-z3")])).toEqual([
      { object: "Deployment default/web-*", message: "count: 1 in the unperturbed run, 2 in this run" },
    ]);
  });

  it("leaves out the author's ignore paths, and annotations holding only perturb's mark", async () => {
    const marked = deployment("web", {}, { annotations: { "perturb.tsop.dev/conflicting-write": "1" } });
    expect(await diff([deployment("web")], [marked])).toEqual([]);
    const seen = (at: string) => deployment("web", {}, { annotations: { "example.com/seen": at } });
    expect(await diff([seen("1")], [seen("2")])).toHaveLength(1);
    expect(await diff([seen("1")], [seen("2")], ["metadata.annotations.example\\.com/seen"])).toEqual([]);
  });
});
