// The one delete order every cluster command uses (run bundle's rollback journal, cleanup, olm
// install's rollback, the dev loop's uninstall and undeploy): OLM's kinds consumers first, then other
// namespaced objects, cluster-scoped ones, namespaces, and CRDs last so their custom resources can
// go first.
import { describe, expect, it } from "vitest";
import type { ObjectRef } from "../../src/kube/objects.js";
import { deleteOrder } from "../../src/kube/delete.js";

const ref = (kind: string, name: string, namespace?: string, apiVersion = "v1"): ObjectRef =>
  namespace ? { apiVersion, kind, name, namespace } : { apiVersion, kind, name };

describe("deleteOrder", () => {
  it("puts consumers before what they consume, namespaces after their contents and CRDs last", () => {
    const created = [
      ref("CustomResourceDefinition", "memcacheds.cache.example.com", undefined, "apiextensions.k8s.io/v1"),
      ref("Namespace", "olm"),
      ref("ClusterRole", "aggregate-olm-edit", undefined, "rbac.authorization.k8s.io/v1"),
      ref("Deployment", "olm-operator", "olm", "apps/v1"),
      ref("OperatorGroup", "og", "olm", "operators.coreos.com/v1"),
      ref("CatalogSource", "cat", "olm", "operators.coreos.com/v1alpha1"),
      ref("Subscription", "sub", "olm", "operators.coreos.com/v1alpha1"),
      ref("Deployment", "olm-operator", "olm", "apps/v1"),
    ];
    expect(deleteOrder(created).map((r) => r.kind)).toEqual([
      "Subscription",
      "CatalogSource",
      "OperatorGroup",
      "Deployment",
      "ClusterRole",
      "Namespace",
      "CustomResourceDefinition",
    ]);
  });

  it("keeps the given order among equals (olm install passes newest first)", () => {
    const refs = [ref("Deployment", "b", "x", "apps/v1"), ref("ServiceAccount", "a", "x")];
    expect(deleteOrder(refs).map((r) => r.name)).toEqual(["b", "a"]);
  });
});
