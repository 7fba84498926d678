// Image reference parsing: the normalisation container tools apply, and precise errors.
import { describe, expect, it } from "vitest";
import {
  canonicalReference,
  familiarReference,
  InvalidReferenceError,
  isLoopbackRegistry,
  parseReference,
  pinnedReference,
} from "../../src/oci/reference.js";

const D = `sha256:${"a".repeat(64)}`;

describe("parseReference", () => {
  it.each([
    ["nginx", "docker.io", "library/nginx", undefined, undefined, "docker.io/library/nginx:latest"],
    ["nginx:1.25", "docker.io", "library/nginx", "1.25", undefined, "docker.io/library/nginx:1.25"],
    ["library/nginx", "docker.io", "library/nginx", undefined, undefined, "docker.io/library/nginx:latest"],
    ["user/app:v1", "docker.io", "user/app", "v1", undefined, "docker.io/user/app:v1"],
    ["docker.io/nginx", "docker.io", "library/nginx", undefined, undefined, "docker.io/library/nginx:latest"],
    ["index.docker.io/user/app", "docker.io", "user/app", undefined, undefined, "docker.io/user/app:latest"],
    ["quay.io/org/op:v0.1.0", "quay.io", "org/op", "v0.1.0", undefined, "quay.io/org/op:v0.1.0"],
    ["localhost/app", "localhost", "app", undefined, undefined, "localhost/app:latest"],
    ["localhost:5000/a/b/c:t", "localhost:5000", "a/b/c", "t", undefined, "localhost:5000/a/b/c:t"],
    ["127.0.0.1:5000/app", "127.0.0.1:5000", "app", undefined, undefined, "127.0.0.1:5000/app:latest"],
    ["[::1]:5000/app:x", "[::1]:5000", "app", "x", undefined, "[::1]:5000/app:x"],
    [`quay.io/org/op@${D}`, "quay.io", "org/op", undefined, D, `quay.io/org/op@${D}`],
    [`quay.io/org/op:v1@${D}`, "quay.io", "org/op", "v1", D, `quay.io/org/op:v1@${D}`],
    [
      "localhost:5000",
      "docker.io",
      "library/localhost",
      "5000",
      undefined,
      "docker.io/library/localhost:5000",
    ],
    ["Registry.Example/app", "Registry.Example", "app", undefined, undefined, "Registry.Example/app:latest"],
    ["a.b/x__y/z--w:T_1.2-3", "a.b", "x__y/z--w", "T_1.2-3", undefined, "a.b/x__y/z--w:T_1.2-3"],
  ])("%s", (input, registry, repository, tag, digest, canonical) => {
    const ref = parseReference(input);
    expect(ref.registry).toBe(registry);
    expect(ref.repository).toBe(repository);
    expect(ref.tag).toBe(tag);
    expect(ref.digest).toBe(digest);
    expect(canonicalReference(ref)).toBe(canonical);
  });

  it.each([
    ["", "the reference is empty"],
    [" nginx", "leading or trailing whitespace"],
    ["Nginx", "the repository name must be lowercase"],
    ["docker.io/Library/nginx", "the repository name must be lowercase"],
    ["nginx:", "the tag after ':' is empty"],
    ["nginx:-bad", 'tag "-bad" is invalid'],
    [`nginx:${"a".repeat(129)}`, "is invalid"],
    ["nginx@sha256:abc", "a sha256 digest has 64 hex digits"],
    [`nginx@md5:${"a".repeat(32)}`, 'digest algorithm "md5" is not supported'],
    [`nginx@sha256:${"A".repeat(64)}`, "must be lowercase hex"],
    ["nginx@latest", "is not of the form <algorithm>:<hex>"],
    ["quay.io//app", "empty path component"],
    ["quay.io/app/", "empty path component"],
    ["quay.io/-app", 'path component "-app" is invalid'],
    ["quay.io/ap..p", 'path component "ap..p" is invalid'],
    ["quay.io/z-_-w", 'path component "z-_-w" is invalid'],
    ["a_b.io:5000/app", 'registry "a_b.io:5000" is not a valid host[:port]'],
    ["a".repeat(64), "64-character hexadecimal string"],
    [`quay.io/${"a".repeat(250)}`, "longer than 255 characters"],
  ])("rejects %j", (input, reason) => {
    expect(() => parseReference(input)).toThrow(InvalidReferenceError);
    expect(() => parseReference(input)).toThrow(reason);
    try {
      parseReference(input);
    } catch (error) {
      expect((error as Error).message).toContain(`invalid image reference "${input}"`);
    }
  });

  it("prints familiar and pinned forms as container tools do", () => {
    expect(familiarReference(parseReference("docker.io/library/nginx"))).toBe("nginx:latest");
    expect(familiarReference(parseReference("docker.io/user/app:v1"))).toBe("user/app:v1");
    expect(familiarReference(parseReference("quay.io/org/op"))).toBe("quay.io/org/op:latest");
    // Pinned references keep the name as written and drop the tag.
    expect(pinnedReference(parseReference("nginx:1.25"), D)).toBe(`nginx@${D}`);
    expect(pinnedReference(parseReference("quay.io/org/op:v1"), D)).toBe(`quay.io/org/op@${D}`);
  });

  it("knows which registries are on this machine", () => {
    expect(isLoopbackRegistry("localhost:5000")).toBe(true);
    expect(isLoopbackRegistry("127.0.0.1:41234")).toBe(true);
    expect(isLoopbackRegistry("[::1]:5000")).toBe(true);
    expect(isLoopbackRegistry("quay.io")).toBe(false);
    expect(isLoopbackRegistry("10.0.0.1:5000")).toBe(false);
  });
});
