// Small pure pieces of the registry client: proxy selection (Go's rules), WWW-Authenticate parsing,
// auth-file key normalisation, bounded concurrency, relatedImages naming.
import { describe, expect, it } from "vitest";
import { parseChallenges } from "../../src/oci/challenge.js";
import { normaliseAuthKey } from "../../src/oci/credentials.js";
import type { ImageSite } from "../../src/oci/image-sites.js";
import { mapSettled } from "../../src/oci/limit.js";
import { bypassesProxy, describeProxy, proxyAuthorization, proxyFor } from "../../src/common/proxy.js";
import { buildRelatedImages } from "../../src/oci/related-images.js";

describe("proxyFor", () => {
  const env = { HTTPS_PROXY: "http://user:pa55@proxy.corp:3128", HTTP_PROXY: "proxy.corp:8080" };
  it("picks the proxy by scheme, upper case first", () => {
    expect(proxyFor(new URL("https://quay.io/v2/"), env)?.host).toBe("proxy.corp:3128");
    expect(proxyFor(new URL("http://reg.corp:5000/v2/"), env)?.host).toBe("proxy.corp:8080");
    expect(proxyFor(new URL("https://quay.io/v2/"), { https_proxy: "http://lower:1" })?.host).toBe("lower:1");
    expect(proxyFor(new URL("https://quay.io/v2/"), {})).toBeUndefined();
  });
  it("never proxies loopback", () => {
    expect(proxyFor(new URL("https://127.0.0.1:5000/v2/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://localhost:5000/v2/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://[::1]:5000/v2/"), env)).toBeUndefined();
  });
  it.each([
    ["quay.io", "443", "quay.io", true],
    ["cdn.quay.io", "443", "quay.io", true],
    ["notquay.io", "443", "quay.io", false],
    ["cdn.quay.io", "443", ".quay.io", true],
    ["quay.io", "443", ".quay.io", true],
    ["a.b.corp", "443", "*.corp", true],
    ["reg.corp", "5000", "reg.corp:5000", true],
    ["reg.corp", "443", "reg.corp:5000", false],
    ["10.1.2.3", "443", "10.0.0.0/8", true],
    ["11.1.2.3", "443", "10.0.0.0/8", false],
    ["10.1.2.3", "443", "10.1.2.3", true],
    ["anything", "443", "*", true],
    ["quay.io", "443", "", false],
  ])("%s:%s with NO_PROXY=%s → bypass %s", (host, port, noProxy, expected) => {
    expect(bypassesProxy(host, port, noProxy)).toBe(expected);
  });
  it("rejects https:// proxies and hides proxy credentials in descriptions", () => {
    expect(() => proxyFor(new URL("https://quay.io/"), { HTTPS_PROXY: "https://p:1" })).toThrow(
      "http:// proxies only",
    );
    const proxy = proxyFor(new URL("https://quay.io/"), env)!;
    expect(describeProxy(proxy)).toBe("http://proxy.corp:3128");
    expect(proxyAuthorization(proxy)).toBe(`Basic ${Buffer.from("user:pa55").toString("base64")}`);
  });
});

describe("parseChallenges", () => {
  it("reads Bearer and Basic challenges with quoted and bare values", () => {
    expect(
      parseChallenges(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
      ),
    ).toEqual([
      {
        scheme: "bearer",
        params: {
          realm: "https://auth.docker.io/token",
          service: "registry.docker.io",
          scope: "repository:library/nginx:pull",
        },
      },
    ]);
    expect(parseChallenges('Basic realm="Registry Realm"')).toEqual([
      { scheme: "basic", params: { realm: "Registry Realm" } },
    ]);
    expect(parseChallenges(['Basic realm=x, Bearer realm="y",error="invalid_token"'])).toEqual([
      { scheme: "basic", params: { realm: "x" } },
      { scheme: "bearer", params: { realm: "y", error: "invalid_token" } },
    ]);
    expect(parseChallenges(undefined)).toEqual([]);
  });
});

describe("normaliseAuthKey", () => {
  it.each([
    ["https://index.docker.io/v1/", "docker.io"],
    ["index.docker.io", "docker.io"],
    ["registry-1.docker.io", "docker.io"],
    ["docker.io", "docker.io"],
    ["https://quay.io", "quay.io"],
    ["http://Reg.Corp:5000/", "reg.corp:5000"],
    ["quay.io/org/repo", "quay.io/org/repo"],
    ["https://ghcr.io/v2/", "ghcr.io"],
  ])("%s → %s", (key, expected) => {
    expect(normaliseAuthKey(key)).toBe(expected);
  });
});

describe("mapSettled", () => {
  it("keeps at most `limit` tasks in flight and every outcome in order", async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapSettled([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      if (n % 3 === 0) throw new Error(`bad ${n}`);
      return n * 10;
    });
    expect(peak).toBe(3);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      10,
      20,
      "bad 3",
      40,
      50,
      "bad 6",
      70,
    ]);
  });
});

describe("buildRelatedImages", () => {
  const D = (c: string) => `sha256:${c.repeat(64)}`;
  const site = (
    role: ImageSite["role"],
    image: string,
    name?: string,
    qualifiedName?: string,
  ): ImageSite => ({
    holder: { image },
    key: "image",
    value: image,
    role,
    where: "x",
    inCsv: true,
    ...(name ? { name } : {}),
    ...(qualifiedName ? { qualifiedName } : {}),
  });
  it("deduplicates spellings of one image, prefers user names, sorts by name", () => {
    const result = buildRelatedImages([
      site("container", `quay.io/o/op@${D("a")}`, "manager", "ctrl"),
      site("env", `docker.io/library/nginx@${D("b")}`, "web", "ctrl-web"),
      site("container", `nginx@${D("b")}`, "proxy", "ctrl-proxy"),
      site("relatedImage", `quay.io/o/op@${D("a")}`, "operator"),
      site("annotation", `quay.io/o/op@${D("a")}`),
    ]);
    expect(result).toEqual([
      { name: "operator", image: `quay.io/o/op@${D("a")}` },
      { name: "web", image: `docker.io/library/nginx@${D("b")}` },
    ]);
  });
  it("qualifies colliding names, then adds a short hash", () => {
    const result = buildRelatedImages([
      site("container", `quay.io/o/a@${D("a")}`, "manager", "one"),
      site("container", `quay.io/o/b@${D("b")}`, "manager", "two"),
      site("container", `quay.io/o/c@${D("c")}`, "x", "same"),
      site("container", `quay.io/o/d@${D("d")}`, "x", "same"),
    ]);
    expect(result.map((r) => r.name)).toEqual([
      "one",
      expect.stringMatching(/^same-[0-9a-f]{8}$/),
      expect.stringMatching(/^same-[0-9a-f]{8}$/),
      "two",
    ]);
    expect(new Set(result.map((r) => r.name)).size).toBe(4);
  });
});

describe("registry flags", () => {
  it("turn into client options: --plain-http for all or a list, paths resolved against cwd", async () => {
    const { registryOptions } = await import("../../src/cli/flags.js");
    expect(registryOptions({ plainHttp: true }, "/w")).toEqual({ plainHttp: true });
    expect(registryOptions({ plainHttp: "a:5000, b.corp" }, "/w")).toEqual({
      plainHttp: ["a:5000", "b.corp"],
    });
    expect(
      registryOptions({ registryConfig: "auth.json", caFile: "/etc/ca.pem", skipTlsVerify: true }, "/w"),
    ).toEqual({
      registryConfig: "/w/auth.json",
      caFile: "/etc/ca.pem",
      skipTlsVerify: true,
    });
    expect(registryOptions({}, "/w")).toEqual({});
  });
});
