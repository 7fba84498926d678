// perturb() with the workloads simulation: a run settles only once the simulation has no change on
// its way. Pods start podStartMs after they are created, far later than settle's quiet checks, so a
// run that settled on a quiet resourceVersion alone compared Deployments caught half-rolled-out
// (seen in CI under load: availableReplicas 2 of 3 in one run, 3 in the other). Here the pods take
// 300 ms, so without the workloads check the step after the create always sees none available.
import { expect, it } from "vitest";
import { assertInvariants, formatFailures, perturb } from "../../src/testing/index.js";
import { createOrUpdate } from "../../src/runtime/index.js";

const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" } as const;
const key = { namespace: "default", name: "app" };

interface DeploymentStatus {
  status?: { availableReplicas?: number };
}

it("waits for the workloads simulation before a run counts as settled", { timeout: 60_000 }, async () => {
  const result = await perturb({
    cluster: { workloads: { podStartMs: 300 } },
    controllers: (manager) =>
      manager
        .controller(CONFIGMAP)
        .owns(DEPLOYMENT)
        .complete(async (request, { client }) => {
          const cm = await client.get(CONFIGMAP, request);
          if (!cm) return;
          await createOrUpdate(
            client,
            { ...DEPLOYMENT, metadata: { name: request.name, namespace: request.namespace } },
            (d: Record<string, unknown>) => {
              const labels = { app: request.name };
              d.spec = {
                replicas: 2,
                selector: { matchLabels: labels },
                template: {
                  metadata: { labels },
                  spec: { containers: [{ name: "app", image: "registry.test/app:1" }] },
                },
              };
            },
            { owner: cm },
          );
        }),
    steps: [
      {
        name: "create the ConfigMap",
        run: (admin) => admin.create({ ...CONFIGMAP, metadata: key, data: { a: "b" } }),
      },
      {
        name: "its Deployment is available",
        run: async (admin) => {
          const deployment = (await admin.get(DEPLOYMENT, key)) as DeploymentStatus | undefined;
          const available = deployment?.status?.availableReplicas ?? 0;
          if (available !== 2) throw new Error(`the run settled with ${available} of 2 replicas available`);
        },
      },
    ],
    kinds: [CONFIGMAP, DEPLOYMENT],
    scenarios: ["slowRequests"],
  });
  expect(formatFailures(result)).toBe("");
  assertInvariants(result);
});
