// The rig's binaries are the pinned versions and report themselves as such (OLM compares a CSV's
// minKubeVersion with the server's gitVersion, so the stamp matters).
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { rigBinary } from "../support/rig.js";

function version(name: string, args: string[]): string {
  return execFileSync(rigBinary(name), args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("rig binaries", () => {
  it("kube-apiserver, controller-manager and scheduler carry the pinned Kubernetes version", () => {
    for (const name of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
      expect(version(name, ["--version"]).trim()).toBe("Kubernetes v1.34.4");
    }
  });

  it("etcd, kwok and opm run", () => {
    expect(version("etcd", ["--version"])).toMatch(/etcd Version: 3\.6\.16/);
    expect(version("kwok", ["--version"])).toMatch(/0\.7\.0/);
    expect(version("opm", ["version"])).toMatch(/OpmVersion/);
  });
});
