import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import {
  catalogReadyCheck,
  catalogServingCheck,
  csvCheck,
  installPlanCheck,
  registryPodCheck,
  subscriptionCheck,
} from "../../src/olm/run/checks.js";
import { dns1123, labelValue, runNames } from "../../src/olm/run/names.js";

const obj = (
  kind: string,
  status: Record<string, unknown>,
  spec: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: "v1",
  kind,
  metadata: { name: "x", namespace: "ns" },
  spec,
  status,
});
const cond = (type: string, status: string, reason?: string, message?: string) => ({
  type,
  status,
  reason,
  message,
});

describe("phase checks", () => {
  it("registry pod: ready only when Running and Ready; pull errors are fatal", () => {
    expect(registryPodCheck(undefined)).toMatchObject({ done: false, status: "not created yet" });
    expect(
      registryPodCheck(obj("Pod", { phase: "Running", conditions: [cond("Ready", "False")] })).done,
    ).toBe(false);
    expect(registryPodCheck(obj("Pod", { phase: "Running", conditions: [cond("Ready", "True")] })).done).toBe(
      true,
    );
    const pulling = obj("Pod", {
      phase: "Pending",
      initContainerStatuses: [
        {
          name: "unpack-catalog",
          state: { waiting: { reason: "ImagePullBackOff", message: "Back-off pulling image" } },
        },
      ],
    });
    expect(registryPodCheck(pulling).failed).toBe(
      "container unpack-catalog is waiting: ImagePullBackOff (Back-off pulling image)",
    );
    const crashed = obj("Pod", {
      phase: "Pending",
      initContainerStatuses: [
        { name: "unpack-catalog", state: { terminated: { exitCode: 1, reason: "Error" } } },
      ],
    });
    expect(registryPodCheck(crashed).failed).toBe("container unpack-catalog exited with code 1 (Error)");
  });

  it("catalog: READY is done, SpecInvalidError is fatal, other states are progress", () => {
    expect(
      catalogReadyCheck(obj("CatalogSource", { connectionState: { lastObservedState: "READY" } })).done,
    ).toBe(true);
    expect(
      catalogReadyCheck(obj("CatalogSource", { connectionState: { lastObservedState: "CONNECTING" } })),
    ).toEqual({
      done: false,
      status: "connection CONNECTING",
    });
    expect(
      catalogReadyCheck(obj("CatalogSource", { reason: "SpecInvalidError", message: "unknown sourcetype: " }))
        .failed,
    ).toBe("OLM rejected the CatalogSource: unknown sourcetype: ");
    const oldAddress = obj("CatalogSource", {
      connectionState: { lastObservedState: "READY", address: "old:50051" },
    });
    expect(catalogServingCheck("new:50051")(oldAddress).done).toBe(false);
    expect(catalogServingCheck("old:50051")(oldAddress).done).toBe(true);
  });

  it("subscription: a new InstallPlan resolves it; terminal conditions fail, retried ones do not", () => {
    const resolved = obj("Subscription", { installPlanRef: { name: "install-a" } });
    expect(subscriptionCheck(undefined)(resolved).done).toBe(true);
    expect(subscriptionCheck("install-a")(resolved).done).toBe(false);
    const terminal = obj("Subscription", {
      conditions: [cond("ResolutionFailed", "True", "ConstraintsNotSatisfiable", "no operators found")],
    });
    expect(subscriptionCheck(undefined)(terminal).failed).toBe(
      "resolution failed (ConstraintsNotSatisfiable): no operators found",
    );
    const retried = obj("Subscription", {
      conditions: [cond("ResolutionFailed", "True", "ErrorPreventedResolution", "catalog unreachable")],
    });
    expect(subscriptionCheck(undefined)(retried)).toEqual({
      done: false,
      status: "resolution failed (ErrorPreventedResolution): catalog unreachable",
    });
    const unpacking = obj("Subscription", {
      conditions: [cond("BundleUnpacking", "True", "UnpackingInProgress", "pod is pending: ErrImagePull")],
    });
    expect(subscriptionCheck(undefined)(unpacking).status).toBe(
      "unpacking the bundle: pod is pending: ErrImagePull",
    );
    const unpackFailed = obj("Subscription", {
      conditions: [cond("BundleUnpackFailed", "True", "BundleUnpackFailed", "job failed")],
    });
    expect(subscriptionCheck(undefined)(unpackFailed).failed).toBe(
      "bundle unpacking failed (BundleUnpackFailed): job failed",
    );
  });

  it("install plan: Complete is done, Failed quotes the Installed condition", () => {
    expect(installPlanCheck(obj("InstallPlan", { phase: "Complete" })).done).toBe(true);
    const failed = obj("InstallPlan", {
      phase: "Failed",
      conditions: [cond("Installed", "False", "InstallComponentFailed", "error creating csv")],
    });
    expect(installPlanCheck(failed).failed).toBe(
      "InstallPlan failed (InstallComponentFailed): error creating csv",
    );
  });

  it("CSV: terminal Failed reasons fail at once, retried ones only after the grace period", () => {
    let now = 1000;
    const check = csvCheck(5000, () => now);
    const failed = (reason: string, message = "m") =>
      obj("ClusterServiceVersion", { phase: "Failed", reason, message });
    expect(check(failed("InstallComponentFailedNoRetry")).failed).toBe(
      "phase Failed (InstallComponentFailedNoRetry): m",
    );
    expect(check(failed("InstallCheckFailed", "install timeout")).failed).toBeDefined();
    expect(check(failed("RequirementsNotMet"))).toEqual({
      done: false,
      status: "phase Failed (RequirementsNotMet): m; OLM may retry",
    });
    now += 4000;
    expect(check(failed("RequirementsNotMet")).failed).toBeUndefined();
    // Back to Pending resets the clock.
    expect(
      check(obj("ClusterServiceVersion", { phase: "Pending", reason: "RequirementsUnknown" })).done,
    ).toBe(false);
    now += 2000;
    expect(check(failed("RequirementsNotMet")).failed).toBeUndefined();
    now += 5000;
    expect(check(failed("RequirementsNotMet")).failed).toBe(
      "phase Failed (RequirementsNotMet): m (still Failed after 5s)",
    );
    expect(check(obj("ClusterServiceVersion", { phase: "Succeeded" })).done).toBe(true);
  });

  it("CSV: its own unmet requirement (minKubeVersion) fails at once with OLM's message", () => {
    const check = csvCheck(60_000);
    const requirement = (status: string, message: string) => ({
      group: "operators.coreos.com",
      version: "v1alpha1",
      kind: "ClusterServiceVersion",
      name: "x",
      status,
      message,
    });
    const pending = (req: Record<string, string>) =>
      obj("ClusterServiceVersion", {
        phase: "Pending",
        reason: "RequirementsNotMet",
        message: "one or more requirements couldn't be found",
        requirementStatus: [req],
      });
    const unmet = "CSV version requirement not met: minKubeVersion (1.99.0) > server version (1.34.4)";
    expect(check(pending(requirement("PresentNotSatisfied", unmet))).failed).toBe(
      `phase Pending (RequirementsNotMet): one or more requirements couldn't be found; ${unmet}`,
    );
    // Other requirements (a missing CRD, a service account) are still OLM's to retry.
    const crd = { ...requirement("NotPresent", "CRD is not present"), kind: "CustomResourceDefinition" };
    expect(check(pending(crd)).failed).toBeUndefined();
    expect(
      check(pending(requirement("Present", "CSV minKubeVersion (1.25.0) less than server version"))).failed,
    ).toBeUndefined();
  });
});

describe("names", () => {
  it("keeps names DNS-1123 and within 63 characters, keeping the package prefix", () => {
    expect(dns1123("My_Operator.v1")).toBe("my-operator-v1");
    const long = runNames("a-very-long-package-name-that-goes-on-and-on-and-on-forever-and-ever");
    expect(long.catalogSource.length).toBeLessThanOrEqual(63);
    expect(long.catalogSource.endsWith("-catalog")).toBe(true);
    expect(long.configMap("0123abcd", 12)).toMatch(/^a-very-long-package-name.*-catalog-0123abcd-12$/);
    expect(long.configMap("0123abcd", 12).length).toBeLessThanOrEqual(63);
    expect(labelValue("x".repeat(80))).toHaveLength(63);
  });
});
