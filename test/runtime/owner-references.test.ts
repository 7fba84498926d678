// setOwnerReference, hasOwnerReference, removeOwnerReference, removeControllerReference
// (controller-runtime's controllerutil names), beside setControllerReference.
import { describe, expect, it } from "vitest";
import type { KubeObjectLike } from "../../src/runtime/client/client.js";
import { InvalidOwnerError, setControllerReference } from "../../src/runtime/controllerutil/helpers.js";
import {
  hasOwnerReference,
  removeControllerReference,
  removeOwnerReference,
  setOwnerReference,
} from "../../src/runtime/controllerutil/owner-references.js";

type Obj = KubeObjectLike & {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    ownerReferences?: Array<Record<string, unknown>>;
  };
};

const owner = (name: string, uid = `uid-${name}`, apiVersion = "example.com/v1"): Obj => ({
  apiVersion,
  kind: "Widget",
  metadata: { name, namespace: "ns", uid },
});
const child = (): Obj => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" } });

describe("setOwnerReference", () => {
  it("adds a plain owner reference (no controller, no blockOwnerDeletion), next to a controller one", () => {
    const obj = child();
    setControllerReference(owner("a"), obj);
    setOwnerReference(owner("b"), obj);
    expect(obj.metadata.ownerReferences).toEqual([
      {
        apiVersion: "example.com/v1",
        kind: "Widget",
        name: "a",
        uid: "uid-a",
        controller: true,
        blockOwnerDeletion: true,
      },
      { apiVersion: "example.com/v1", kind: "Widget", name: "b", uid: "uid-b" },
    ]);
  });

  it("replaces the reference to the same owner (same group, kind and name; the version may differ)", () => {
    const obj = child();
    setOwnerReference(owner("a"), obj);
    setOwnerReference(owner("a", "uid-new", "example.com/v2"), obj);
    expect(obj.metadata.ownerReferences).toEqual([
      { apiVersion: "example.com/v2", kind: "Widget", name: "a", uid: "uid-new" },
    ]);
  });

  it("refuses owners Kubernetes would not honour, and owners without a uid", () => {
    const other = { ...child(), metadata: { name: "c", namespace: "elsewhere" } };
    expect(() => setOwnerReference(owner("a"), other)).toThrow(InvalidOwnerError);
    const noUid = { ...owner("a"), metadata: { name: "a", namespace: "ns" } };
    expect(() => setOwnerReference(noUid, child())).toThrow(
      /setOwnerReference: the owner needs .*metadata\.uid/,
    );
  });
});

describe("hasOwnerReference / removeOwnerReference", () => {
  it("find and remove a reference, controller or not; false when there is none", () => {
    const obj = child();
    setControllerReference(owner("a"), obj);
    setOwnerReference(owner("b"), obj);
    expect(hasOwnerReference(owner("a"), obj)).toBe(true);
    expect(hasOwnerReference(owner("z"), obj)).toBe(false);
    expect(hasOwnerReference(owner("b", "x", "other.io/v1"), obj)).toBe(false); // another group
    expect(removeOwnerReference(owner("b"), obj)).toBe(true);
    expect(removeOwnerReference(owner("b"), obj)).toBe(false);
    expect(obj.metadata.ownerReferences?.map((r) => r.name)).toEqual(["a"]);
    expect(removeOwnerReference(owner("a"), obj)).toBe(true);
    expect(obj.metadata.ownerReferences).toEqual([]);
    expect(hasOwnerReference(owner("a"), child())).toBe(false);
  });
});

describe("removeControllerReference", () => {
  it("removes the controller reference of this owner only, keeping plain references", () => {
    const obj = child();
    setControllerReference(owner("a"), obj);
    setOwnerReference(owner("b"), obj);
    expect(removeControllerReference(owner("b"), obj)).toBe(false); // b owns it but does not control it
    expect(removeControllerReference(owner("a"), obj)).toBe(true);
    expect(obj.metadata.ownerReferences?.map((r) => r.name)).toEqual(["b"]);
    expect(removeControllerReference(owner("a"), obj)).toBe(false);
    // Released, the object can get another controller.
    setControllerReference(owner("c"), obj);
    expect(obj.metadata.ownerReferences?.filter((r) => r.controller).map((r) => r.name)).toEqual(["c"]);
  });
});
