// olm install through the domain API against tsop/testing + the OLM model.
import { afterEach, describe, expect, it } from "vitest";
import { MemoryReporter } from "../../src/common/reporter.js";
import { olmInstall } from "../../src/olm/index.js";
import { type OlmEnv, startOlmEnv } from "./harness.js";

let env: OlmEnv | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

describe("olm install (domain)", () => {
  it("installs OLM: CRDs established first, then the rest; waits for deployments and the packageserver CSV", async () => {
    env = await startOlmEnv();
    const reporter = new MemoryReporter();
    const result = await olmInstall({ ...env.base, version: "0.28.0", timeoutMs: 30_000, reporter });
    expect(result.version).toBe("v0.28.0");
    expect(result.verdict).toBe("healthy");
    const csv = env.cluster.get(
      "operators.coreos.com/v1alpha1",
      "ClusterServiceVersion",
      "packageserver",
      "olm",
    );
    expect(csv?.status?.phase).toBe("Succeeded");
    const applied = env.cluster.get("v1", "Namespace", "olm");
    expect(JSON.stringify(applied?.metadata?.managedFields)).toContain('"manager":"tsop"');
    console.log(reporter.text());
  }, 60_000);
});
