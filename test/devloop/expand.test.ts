// `$(VAR)` expansion against the kubelet's own test table (fixtures/devloop), and the environment
// run local computes from a manager container: envFrom first, env in order, valueFrom resolved.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { containerEnv, type LocalPod, type SourceReader } from "../../src/devloop/env.js";
import { expand, mappingFor } from "../../src/devloop/expand.js";

const table = JSON.parse(
  readFileSync(new URL("../../fixtures/devloop/kubelet-expansion-cases.json", import.meta.url), "utf8"),
) as { context: Record<string, string>; cases: Array<{ name: string; input: string; expected: string }> };

describe("expand (the kubelet's test table)", () => {
  const context = new Map(Object.entries(table.context));
  it("has the upstream cases", () => expect(table.cases.length).toBeGreaterThanOrEqual(40));
  for (const c of table.cases) {
    it(`${c.name}: ${JSON.stringify(c.input)}`, () => {
      expect(expand(c.input, mappingFor(context))).toBe(c.expected);
    });
  }
  it("looks contexts up in order (TestMappingDual)", () => {
    const first = new Map([["VAR_A", "A"]]);
    const second = new Map([
      ["VAR_A", "no"],
      ["VAR_B", "B"],
    ]);
    expect(expand("$(VAR_A)$(VAR_B)$(VAR_X)", mappingFor(first, second))).toBe("AB$(VAR_X)");
  });
});

const pod: LocalPod = {
  name: "controller-manager-local",
  namespace: "team-a",
  serviceAccountName: "controller-manager",
  labels: { "control-plane": "controller-manager" },
  annotations: { note: "hi" },
};

function reader(objects: Record<string, Record<string, string>>): SourceReader {
  return async (kind, name) => objects[`${kind}/${name}`];
}

async function envOf(
  container: Record<string, unknown>,
  objects: Record<string, Record<string, string>> = {},
) {
  return containerEnv({
    container,
    pod,
    read: reader(objects),
    where: "config/manager: Deployment m, container manager",
  });
}

describe("containerEnv", () => {
  it("expands references to variables declared before, never after (TestMapReference and the kubelet's order)", async () => {
    const env = await envOf({
      env: [
        { name: "RELATED_IMAGE_MEMCACHED", value: "quay.io/m/memcached:1.6" },
        { name: "MEMCACHED_IMAGE", value: "$(RELATED_IMAGE_MEMCACHED)" },
        { name: "EARLY", value: "$(LATE)-x" },
        { name: "LATE", value: "late" },
        { name: "FOO", value: "bar" },
        { name: "ZOO", value: "$(FOO)-1" },
        { name: "BLU", value: "$(ZOO)-2" },
        { name: "HOME_REF", value: "$(HOME)" },
      ],
    });
    expect(Object.fromEntries(env)).toEqual({
      RELATED_IMAGE_MEMCACHED: "quay.io/m/memcached:1.6",
      MEMCACHED_IMAGE: "quay.io/m/memcached:1.6",
      EARLY: "$(LATE)-x",
      LATE: "late",
      FOO: "bar",
      ZOO: "bar-1",
      BLU: "bar-1-2",
      // The local shell's variables are not the container's: the kubelet would leave it as written.
      HOME_REF: "$(HOME)",
    });
  });

  it("resolves fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef and envFrom with prefixes", async () => {
    const env = await envOf(
      {
        envFrom: [{ configMapRef: { name: "settings" }, prefix: "CFG_" }, { secretRef: { name: "creds" } }],
        env: [
          { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "SA", valueFrom: { fieldRef: { fieldPath: "spec.serviceAccountName" } } },
          { name: "ROLE", valueFrom: { fieldRef: { fieldPath: "metadata.labels['control-plane']" } } },
          { name: "WATCH", value: "$(POD_NAMESPACE),$(CFG_extra)" },
          { name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
          {
            name: "MEM_MI",
            valueFrom: { resourceFieldRef: { resource: "requests.memory", divisor: "1Mi" } },
          },
          { name: "LEVEL", valueFrom: { configMapKeyRef: { name: "settings", key: "level" } } },
          { name: "TOKEN", valueFrom: { secretKeyRef: { name: "creds", key: "token" } } },
          { name: "GONE", valueFrom: { secretKeyRef: { name: "absent", key: "x", optional: true } } },
          { name: "EMPTY" },
        ],
        resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { memory: "64Mi" } },
      },
      { "ConfigMap/settings": { level: "debug", extra: "e" }, "Secret/creds": { token: "s3cret" } },
    );
    expect([...env]).toEqual([
      ["CFG_level", "debug"],
      ["CFG_extra", "e"],
      ["token", "s3cret"],
      ["POD_NAMESPACE", "team-a"],
      ["POD_NAME", "controller-manager-local"],
      ["SA", "controller-manager"],
      ["ROLE", "controller-manager"],
      ["WATCH", "team-a,e"],
      ["CPU", "1"],
      ["MEM_MI", "64"],
      ["LEVEL", "debug"],
      ["TOKEN", "s3cret"],
      ["EMPTY", ""],
    ]);
  });

  it("names the container and the missing object when a required source does not exist", async () => {
    await expect(
      envOf({ env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "creds", key: "token" } } }] }),
    ).rejects.toThrow(
      "config/manager: Deployment m, container manager needs Secret team-a/creds (env TOKEN), which does not exist in the cluster",
    );
    await expect(
      envOf({ env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "status.phase" } } }] }),
    ).rejects.toThrow("refers to field status.phase");
  });
});
