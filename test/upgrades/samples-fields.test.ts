// What `tsop test upgrades` compares and waits for, without a cluster: the samples read from a
// directory (kustomization.yaml aside, bad documents refused naming the file), the fields a sample
// sets and how a read-back object differs from them, and the readiness (conditions, jsonpath).
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { describeDifference, fieldDifferences, setFields } from "../../src/upgrades/fields.js";
import { conditionReadiness, parseReadyJsonpath, readyState } from "../../src/upgrades/readiness.js";
import { readSamples } from "../../src/upgrades/samples.js";
import { testdir } from "../support/testdir.js";

const sample = {
  apiVersion: "cache.example.com/v1alpha1",
  kind: "Memcached",
  metadata: { name: "m", labels: { a: "b" } },
  spec: { size: 3, ports: [{ name: "x", port: 1 }], tls: {}, "odd.key": true },
  status: { ignored: 1 },
} as KubeObject;

describe("the fields a sample sets", () => {
  it("every leaf outside metadata and status, with its path; empty objects count as leaves", () => {
    expect(setFields(sample).map((f) => [f.path, f.value])).toEqual([
      ['.spec["odd.key"]', true],
      [".spec.ports[0].name", "x"],
      [".spec.ports[0].port", 1],
      [".spec.size", 3],
      [".spec.tls", {}],
    ]);
  });

  it("read back: defaults and status added are fine; a pruned or changed field is named", () => {
    const same = { ...sample, spec: { ...sample.spec, replicas: 1 }, status: { ready: true } } as KubeObject;
    expect(fieldDifferences(sample, same)).toEqual([]);
    const pruned = {
      ...sample,
      spec: { ports: [{ name: "x", port: 2 }], tls: {}, "odd.key": true },
    } as KubeObject;
    expect(fieldDifferences(sample, pruned).map(describeDifference)).toEqual([
      "field .spec.ports[0].port is 2, the sample set 1",
      "field .spec.size (set to 3) is gone",
    ]);
  });
});

describe("samples directory", () => {
  it("every document of every YAML file but kustomization.yaml, in path order, with its source", async () => {
    const dir = await testdir({
      "samples/kustomization.yaml": "resources: [b.yaml]\n",
      "samples/b.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
      "samples/a/a.yml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    });
    const samples = await readSamples(`${dir}/samples`);
    expect(samples.map((s) => [s.object.metadata.name, s.source.replace(/^.*samples\//, "")])).toEqual([
      ["a", "a/a.yml#1"],
      ["b", "b.yaml#1"],
      ["c", "b.yaml#2"],
    ]);
  });

  it("refuses a document without a name, an empty directory and a missing one, naming them", async () => {
    const dir = await testdir({
      "bad/x.yaml": "apiVersion: v1\nkind: ConfigMap\n",
      "empty/kustomization.yaml": "{}\n",
    });
    await expect(readSamples(`${dir}/bad`)).rejects.toThrow(
      /x\.yaml#1: a sample needs apiVersion, kind and metadata\.name/,
    );
    await expect(readSamples(`${dir}/empty`)).rejects.toThrow(/holds no sample/);
    await expect(readSamples(`${dir}/none`)).rejects.toThrow(/samples directory .*none does not exist/);
  });
});

describe("readiness", () => {
  const withConditions = (...c: Array<[string, string]>) =>
    ({
      ...sample,
      status: { conditions: c.map(([type, status]) => ({ type, status, reason: "R" })) },
    }) as KubeObject;

  it("default: Available or Ready True; says what it saw otherwise", () => {
    const r = conditionReadiness();
    expect(readyState(withConditions(["Ready", "True"]), r)).toEqual({
      ready: true,
      status: "Ready=True",
      condition: "Ready",
    });
    expect(readyState(withConditions(["Available", "False"]), r)).toEqual({
      ready: false,
      status: "Available=False (R)",
    });
    expect(readyState(sample, r).status).toBe("no Available or Ready condition");
    expect(readyState(undefined, r).status).toBe("gone");
  });

  it("a jsonpath as kubectl wait takes it: a value, or present and not empty", () => {
    const phase = parseReadyJsonpath("{.status.phase}=Running");
    expect(readyState({ ...sample, status: { phase: "Running" } } as KubeObject, phase).ready).toBe(true);
    expect(readyState({ ...sample, status: { phase: "Pending" } } as KubeObject, phase)).toEqual({
      ready: false,
      status: '.status.phase "Pending"',
    });
    const first = parseReadyJsonpath("{.status.nodes[0]}");
    expect(readyState({ ...sample, status: { nodes: ["n"] } } as KubeObject, first).ready).toBe(true);
    expect(readyState({ ...sample, status: { nodes: [] } } as KubeObject, first).ready).toBe(false);
    expect(() => parseReadyJsonpath(".status.phase")).toThrow(
      /--ready-jsonpath ".status.phase" is not a jsonpath/,
    );
  });
});
