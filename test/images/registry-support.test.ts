// The test registry itself, checked with skopeo only: each variant accepts pushes from skopeo with
// the right credentials and refuses the wrong ones, so the tsop tests built on it mean something.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushTestImage, skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";

describe.each(["none", "htpasswd", "token"] as const)("docker-registry, auth %s", (auth) => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ auth, tls: auth === "htpasswd" });
  });
  afterAll(() => registry?.stop());

  it("stores an image skopeo copies in and reports its digest", async () => {
    const digest = await pushTestImage(registry, "team/app", "v1");
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const info = await skopeoInspect(registry, "team/app:v1");
    expect(info.Digest).toBe(digest);
    if (auth === "token") expect(registry.issuer?.requests.some((r) => r.account === "tester")).toBe(true);
  });

  it.runIf(auth !== "none")("refuses a wrong password", async () => {
    await expect(skopeoInspect(registry, "team/app:v1", { creds: "tester:wrong" })).rejects.toThrow();
  });
});
