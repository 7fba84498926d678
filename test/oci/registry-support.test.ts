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

  // An open registry has no password to get wrong; the authenticated variants must refuse one.
  const refusal = auth === "none" ? "serves anyone without credentials" : "refuses a wrong password";
  it(refusal, async () => {
    const wrong = skopeoInspect(registry, "team/app:v1", { creds: "tester:wrong" });
    if (auth === "none") await expect(wrong).resolves.toBeTruthy();
    else await expect(wrong).rejects.toThrow();
  });
});
