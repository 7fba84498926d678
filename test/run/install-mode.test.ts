import { describe, expect, it } from "vitest";
import { InvalidInputError, UsageError } from "../../src/common/errors.js";
import type { KubeObject } from "../../src/kube/objects.js";
import {
  checkExistingGroup,
  modesNeeded,
  parseInstallMode,
  resolveInstallMode,
} from "../../src/olm/run/install-mode.js";
import { loadFixture } from "./fixtures.js";

function csvWith(modes: Record<string, boolean>): KubeObject {
  return {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: { name: "op.v1.0.0" },
    spec: { installModes: Object.entries(modes).map(([type, supported]) => ({ type, supported })) },
  };
}

function group(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "operators.coreos.com/v1",
    kind: "OperatorGroup",
    metadata: { name: "og", namespace: "ns" },
    spec,
    status,
  };
}

describe("parseInstallMode", () => {
  it.each([
    ["AllNamespaces", { type: "AllNamespaces", namespaces: [] }],
    ["ownnamespace", { type: "OwnNamespace", namespaces: [] }],
    ["SingleNamespace=watched", { type: "SingleNamespace", namespaces: ["watched"] }],
    ["MultiNamespace=b, a,b", { type: "MultiNamespace", namespaces: ["a", "b"] }],
  ])("parses %s", (text, expected) => {
    expect(parseInstallMode(text)).toEqual(expected);
  });

  it.each([
    ["Everywhere", /unknown install mode "Everywhere"/],
    ["OwnNamespace=x", /OwnNamespace takes no namespaces/],
    ["SingleNamespace", /SingleNamespace needs exactly one namespace/],
    ["SingleNamespace=a,b", /SingleNamespace needs exactly one namespace/],
    ["MultiNamespace=", /MultiNamespace needs at least one namespace/],
    ["SingleNamespace=Not_Valid", /"Not_Valid" is not a valid namespace name/],
  ])("rejects %s as a usage error", (text, message) => {
    expect(() => parseInstallMode(text)).toThrow(UsageError);
    expect(() => parseInstallMode(text)).toThrow(message);
  });
});

describe("resolveInstallMode", () => {
  it("prefers AllNamespaces, then OwnNamespace, from the CSV", async () => {
    const csv = (await loadFixture("0.0.1")).csv;
    expect(resolveInstallMode(csv, "ns", undefined)).toEqual({
      type: "AllNamespaces",
      targetNamespaces: [],
      source: "csv",
    });
    expect(
      resolveInstallMode(csvWith({ OwnNamespace: true, AllNamespaces: false }), "ns", undefined),
    ).toMatchObject({
      type: "OwnNamespace",
      targetNamespaces: ["ns"],
    });
  });

  it("asks for --install-mode when the CSV only supports Single/MultiNamespace", () => {
    expect(() => resolveInstallMode(csvWith({ SingleNamespace: true }), "ns", undefined)).toThrow(
      /supports only SingleNamespace: tsop cannot guess/,
    );
  });

  it("checks the flag against the CSV", () => {
    const csv = csvWith({ OwnNamespace: true, SingleNamespace: true });
    expect(resolveInstallMode(csv, "ns", parseInstallMode("SingleNamespace=other"))).toEqual({
      type: "SingleNamespace",
      targetNamespaces: ["other"],
      source: "flag",
    });
    expect(() => resolveInstallMode(csv, "ns", parseInstallMode("AllNamespaces"))).toThrow(
      /does not support install mode AllNamespaces \(it supports: OwnNamespace, SingleNamespace\)/,
    );
    expect(() => resolveInstallMode(csv, "ns", parseInstallMode("SingleNamespace=ns"))).toThrow(
      /that is OwnNamespace/,
    );
  });

  it("rejects a CSV without install modes", () => {
    expect(() => resolveInstallMode(csvWith({}), "ns", undefined)).toThrow(InvalidInputError);
  });
});

describe("existing OperatorGroup", () => {
  it("computes the modes a selection needs", () => {
    expect(modesNeeded([""], "ns")).toEqual(["AllNamespaces"]);
    expect(modesNeeded(["ns"], "ns")).toEqual(["OwnNamespace"]);
    expect(modesNeeded(["x"], "ns")).toEqual(["SingleNamespace"]);
    expect(modesNeeded(["ns", "x"], "ns")).toEqual(["MultiNamespace", "OwnNamespace"]);
    expect(modesNeeded(["", "x"], "ns")).toBeUndefined();
  });

  it("accepts a compatible group and rejects an incompatible one with what to do", () => {
    const csv = csvWith({ OwnNamespace: true, AllNamespaces: false });
    expect(checkExistingGroup(group({ targetNamespaces: ["ns"] }), csv, "ns", undefined)).toMatch(
      /using the existing OperatorGroup "og"/,
    );
    const all = group({});
    expect(() => checkExistingGroup(all, csv, "ns", undefined)).toThrow(
      /OperatorGroup ns\/og targets all namespaces, which needs install mode AllNamespaces; ClusterServiceVersion "op.v1.0.0" supports OwnNamespace/,
    );
  });

  it("uses the group's computed status when present, and matches --install-mode", () => {
    const csv = csvWith({ OwnNamespace: true, AllNamespaces: true });
    const own = group({ selector: { matchLabels: { a: "b" } } }, { namespaces: ["ns"] });
    expect(() => checkExistingGroup(own, csv, "ns", parseInstallMode("AllNamespaces"))).toThrow(
      /targets ns, not what --install-mode AllNamespaces asks for \(all namespaces\)/,
    );
    expect(checkExistingGroup(own, csv, "ns", parseInstallMode("OwnNamespace"))).toMatch(/targets ns/);
  });
});
