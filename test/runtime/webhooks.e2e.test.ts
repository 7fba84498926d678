// The Manager's webhook server over real HTTPS: AdmissionReviews for a defaulter (JSON patch) and a
// validator (denial with the handler's message, warnings), ConversionReviews through hub and spokes,
// certificates reloaded when the files change, probes, and logs that never carry object contents.
import { request } from "node:https";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manager } from "../../src/runtime/manager/manager.js";
import {
  AdmissionDenied,
  ConversionWebhook,
  type Converter,
  type Defaulter,
  MutatingWebhook,
  type Spoke,
  ValidatingWebhook,
  type Validator,
} from "../../src/runtime/webhooks.js";
import { writeServingCertificate } from "../../src/testing/webhook-config.js";
import { type Harness, harness, httpGet } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

interface Memcached {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: { size?: number; secret?: string; tags?: string[] };
}

const rules = { groups: ["cache.example.com"], versions: ["v1alpha1"], resources: ["memcacheds"] };

// Decorators applied as functions: vitest's transform has no decorator syntax (both forms are supported).
class MemcachedWebhook implements Defaulter<Memcached>, Validator<Memcached> {
  default(obj: Memcached): void {
    obj.spec.size ??= 3;
    obj.metadata.labels = { ...obj.metadata.labels, "a/b": "defaulted" };
    obj.spec.tags = [...(obj.spec.tags ?? []), "cache"];
  }
  validateCreate(obj: Memcached) {
    if ((obj.spec.size ?? 0) > 5) throw new Error(`spec.size ${obj.spec.size} is more than 5`);
    return obj.spec.size === 5 ? ["spec.size 5 is the maximum"] : undefined;
  }
  validateUpdate(obj: Memcached, old: Memcached) {
    if (obj.spec.size !== old.spec.size && old.spec.size === 1)
      throw new AdmissionDenied("size 1 is pinned", { code: 422, warnings: ["unpin first"] });
  }
  validateDelete(obj: Memcached) {
    if (obj.metadata.name === "keep") throw new Error("keep may not be deleted");
  }
}
MutatingWebhook({ path: "/mutate-memcached", name: "mmemcached.kb.io", ...rules })(MemcachedWebhook);
ValidatingWebhook({
  path: "/validate-memcached",
  name: "vmemcached.kb.io",
  ...rules,
  operations: ["CREATE", "UPDATE", "DELETE"],
})(MemcachedWebhook);

interface V1 {
  apiVersion: string;
  kind: string;
  metadata: object;
  spec: { size: number };
}
interface V2 {
  apiVersion: string;
  kind: string;
  metadata: object;
  spec: { replicas: number };
}

class MemcachedConversion implements Converter<V1> {
  spokes = {
    v2: {
      toHub: (o: V2): V1 => ({ ...o, spec: { size: o.spec.replicas } }),
      fromHub: (h: V1): V2 => ({ ...h, spec: { replicas: h.spec.size } }),
    } satisfies Spoke<V1, V2>,
  };
}
ConversionWebhook({ group: "cache.example.com", kind: "Memcached", hub: "v1" })(MemcachedConversion);

const dir = mkdtempSync(join(tmpdir(), "tsop-webhooks-"));
let h: Harness;
let manager: Manager;
let ca: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reviews are JSON
function post(path: string, body: unknown, caPem = ca): Promise<{ status: number; json: any; peer: string }> {
  const url = new URL(path, manager.webhookUrl);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", ca: caPem, headers: { "Content-Type": "application/json" }, agent: false },
      (res) => {
        let data = "";
        const peer = (res.socket as import("node:tls").TLSSocket).getPeerCertificate().fingerprint256;
        res.on("data", (c) => (data += c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, json: data ? JSON.parse(data) : undefined, peer }),
        );
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

function review(operation: string, object: unknown, oldObject?: unknown) {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "uid-1",
      operation,
      kind: { group: "cache.example.com", version: "v1alpha1", kind: "Memcached" },
      resource: { group: "cache.example.com", version: "v1alpha1", resource: "memcacheds" },
      name: "m",
      namespace: "default",
      object,
      oldObject,
    },
  };
}

const sample = (spec: Memcached["spec"], name = "m"): Memcached => ({
  apiVersion: "cache.example.com/v1alpha1",
  kind: "Memcached",
  metadata: { name, namespace: "default" },
  spec,
});

beforeAll(async () => {
  h = await harness();
  const cert = await writeServingCertificate(join(dir, "certs"));
  ca = Buffer.from(cert.caBundle, "base64").toString();
  manager = await h.startManager({
    webhookBindAddress: "127.0.0.1:0",
    webhookCertDir: cert.certDir,
    webhookCertPollIntervalMs: 50,
  });
  manager.addWebhook(new MemcachedWebhook());
  manager.addWebhook(new MemcachedConversion());
  void manager.start();
  await waitFor("the webhook server", () => manager.webhookUrl);
}, 60_000);

afterAll(async () => {
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("admission", () => {
  it("answers a defaulting review with the JSON patch of what default() changed", async () => {
    const res = await post("/mutate-memcached", review("CREATE", sample({ secret: "s3cr3t-value" })));
    expect(res.status).toBe(200);
    expect(res.json.apiVersion).toBe("admission.k8s.io/v1");
    expect(res.json.response).toMatchObject({ uid: "uid-1", allowed: true, patchType: "JSONPatch" });
    const patch = JSON.parse(Buffer.from(res.json.response.patch, "base64").toString());
    expect(patch).toEqual([
      { op: "add", path: "/metadata/labels", value: { "a/b": "defaulted" } },
      { op: "add", path: "/spec/size", value: 3 },
      { op: "add", path: "/spec/tags", value: ["cache"] },
    ]);
  });

  it("patches only what default() changed: one element appended to an array", async () => {
    const obj = sample({ size: 2, tags: ["cache"] });
    obj.metadata.labels = { "a/b": "defaulted" };
    const res = await post("/mutate-memcached", review("CREATE", obj));
    // tags gains another "cache": appended at the end of the array.
    const patch = JSON.parse(Buffer.from(res.json.response.patch, "base64").toString());
    expect(patch).toEqual([{ op: "add", path: "/spec/tags/-", value: "cache" }]);
  });

  it("denies with the validator's message and allows with its warnings", async () => {
    const denied = await post("/validate-memcached", review("CREATE", sample({ size: 9 })));
    expect(denied.json.response).toMatchObject({
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: "spec.size 9 is more than 5" },
    });
    const warned = await post("/validate-memcached", review("CREATE", sample({ size: 5 })));
    expect(warned.json.response).toEqual({
      uid: "uid-1",
      allowed: true,
      warnings: ["spec.size 5 is the maximum"],
    });
    const update = await post(
      "/validate-memcached",
      review("UPDATE", sample({ size: 2 }), sample({ size: 1 })),
    );
    expect(update.json.response).toMatchObject({
      allowed: false,
      status: { code: 422, message: "size 1 is pinned" },
      warnings: ["unpin first"],
    });
    const del = await post("/validate-memcached", review("DELETE", null, sample({}, "keep")));
    expect(del.json.response).toMatchObject({
      allowed: false,
      status: { message: "keep may not be deleted" },
    });
  });

  it("answers bad requests with HTTP errors, not reviews", async () => {
    expect((await post("/nowhere", review("CREATE", sample({})))).status).toBe(404);
    expect((await post("/validate-memcached", { kind: "Pod" })).status).toBe(400);
  });
});

describe("conversion", () => {
  it("converts spokes through the hub in both directions", async () => {
    const res = await post("/convert", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: {
        uid: "c-1",
        desiredAPIVersion: "cache.example.com/v2",
        objects: [
          {
            apiVersion: "cache.example.com/v1",
            kind: "Memcached",
            metadata: { name: "a" },
            spec: { size: 4 },
          },
        ],
      },
    });
    expect(res.json.response).toEqual({
      uid: "c-1",
      result: { status: "Success" },
      convertedObjects: [
        {
          apiVersion: "cache.example.com/v2",
          kind: "Memcached",
          metadata: { name: "a" },
          spec: { replicas: 4 },
        },
      ],
    });
    const back = await post("/convert", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: {
        uid: "c-2",
        desiredAPIVersion: "cache.example.com/v1",
        objects: [
          {
            apiVersion: "cache.example.com/v2",
            kind: "Memcached",
            metadata: { name: "a" },
            spec: { replicas: 2 },
          },
        ],
      },
    });
    expect(back.json.response.convertedObjects[0].spec).toEqual({ size: 2 });
    const unknown = await post("/convert", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: {
        uid: "c-3",
        desiredAPIVersion: "cache.example.com/v3",
        objects: [
          {
            apiVersion: "cache.example.com/v1",
            kind: "Memcached",
            metadata: { name: "b" },
            spec: { size: 1 },
          },
        ],
      },
    });
    expect(unknown.json.response.result).toEqual({
      status: "Failure",
      message: "Memcached has no spoke for version v3 (hub is v1)",
    });
  });
});

describe("operations", () => {
  it("reports the webhook server in /readyz and /healthz", async () => {
    const ready = await httpGet(`${manager.healthProbeUrl}/readyz?verbose`);
    expect(ready.body).toContain("[+]webhook ok");
    const health = await httpGet(`${manager.healthProbeUrl}/healthz?verbose`);
    expect(health.body).toContain("[+]webhook ok");
  });

  it("serves a new certificate after the files change, without a restart", async () => {
    const before = (await post("/convert", { kind: "x" })).peer;
    const next = await writeServingCertificate(join(dir, "certs"));
    const nextCa = Buffer.from(next.caBundle, "base64").toString();
    const after = await waitFor("the new certificate", async () => {
      const r = await post("/convert", { kind: "x" }, nextCa).catch(() => undefined);
      return r && r.peer !== before ? r : undefined;
    });
    expect(after.status).toBe(400);
    ca = nextCa;
  });

  it("never logs object contents, even at debug level", () => {
    const text = h.logs.join("\n");
    expect(text).toContain('"msg":"admission"');
    expect(text).not.toContain("s3cr3t-value");
  });

  it("refuses a handler without the methods its decorators need", () => {
    class Broken {}
    MutatingWebhook({ path: "/m2", name: "m2.kb.io", ...rules })(Broken);
    expect(() => manager.addWebhook(new Broken())).toThrow(/has no default\(obj\) method/);
    expect(() => manager.addWebhook(new MemcachedWebhook())).toThrow(/already served/);
  });
});
