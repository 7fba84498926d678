// The in-memory API server calls admission webhooks like kube-apiserver: mutating before
// validating, patches applied, denials and warnings passed on, failurePolicy on unreachable or slow
// webhooks, namespace and object selectors. The webhooks here are a scripted HTTPS server.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { writeServingCertificate } from "../../src/testing/webhook-config.js";
import { http } from "./helpers.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- admission reviews are JSON
type Review = { request: Record<string, any> };
type Answer = (review: Review) => Record<string, unknown> | "hang";

const dir = mkdtempSync(join(tmpdir(), "tsop-admission-"));
let cluster: TestCluster;
let server: Server;
let base: string;
let caBundle: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- admission reviews are JSON
const calls: Array<{ path: string; operation: string; name: string; object: any }> = [];
const answers = new Map<string, Answer>();

beforeAll(async () => {
  cluster = await startTestCluster();
  const cert = await writeServingCertificate(dir);
  caBundle = cert.caBundle;
  server = createServer(
    { cert: readFileSync(join(dir, "tls.crt")), key: readFileSync(join(dir, "tls.key")) },
    (req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const review = JSON.parse(body) as Review;
        const path = req.url ?? "";
        if (path === "/convert") {
          calls.push({ path, operation: "CONVERT", name: "", object: review.request.objects });
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(
            JSON.stringify({
              apiVersion: "apiextensions.k8s.io/v1",
              kind: "ConversionReview",
              response: convert(review),
            }),
          );
          return;
        }
        calls.push({
          path,
          operation: review.request.operation,
          name: review.request.name,
          object: review.request.object,
        });
        const answer = (answers.get(path) ?? (() => ({})))(review);
        if (answer === "hang") return;
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({
            apiVersion: "admission.k8s.io/v1",
            kind: "AdmissionReview",
            response: { uid: review.request.uid, allowed: true, ...answer },
          }),
        );
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await http(cluster, "POST", "/api/v1/namespaces", {
    metadata: { name: "hooked", labels: { webhooks: "on" } },
  });
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The scripted conversion: v1 spec.size is v2 spec.replicas; "fail" in a name fails the review. */
function convert(review: Review) {
  const { uid, desiredAPIVersion, objects } = review.request;
  if (objects.some((o: Review["request"]) => o.metadata.name.includes("fail")))
    return { uid, convertedObjects: [], result: { status: "Failure", message: "cannot convert fail" } };
  const convertedObjects = objects.map((o: Review["request"]) => {
    const { size, replicas, ...rest } = o.spec;
    const spec = desiredAPIVersion.endsWith("/v2")
      ? { ...rest, replicas: size }
      : { ...rest, size: replicas };
    return { ...o, apiVersion: desiredAPIVersion, spec };
  });
  return { uid, convertedObjects, result: { status: "Success" } };
}

const patchOf = (ops: unknown) => ({
  patchType: "JSONPatch",
  patch: Buffer.from(JSON.stringify(ops)).toString("base64"),
});

function webhook(name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: `${base}${path}`, caBundle },
    rules: [
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE", "UPDATE", "DELETE"],
        resources: ["configmaps"],
      },
    ],
    ...extra,
  };
}

async function configure(mutating: unknown[], validating: unknown[]) {
  for (const [kind, webhooks] of [
    ["mutatingwebhookconfigurations", mutating],
    ["validatingwebhookconfigurations", validating],
  ] as const) {
    await http(cluster, "DELETE", `/apis/admissionregistration.k8s.io/v1/${kind}/test`);
    if (webhooks.length)
      await http(cluster, "POST", `/apis/admissionregistration.k8s.io/v1/${kind}`, {
        metadata: { name: "test" },
        webhooks,
      });
  }
}

let counter = 0;
const configMap = (data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: `cm-${++counter}`, ...(labels ? { labels } : {}) },
  data,
});

beforeEach(() => {
  calls.length = 0;
  answers.clear();
});

describe("admission webhooks in the in-memory server", () => {
  it("applies mutating patches, then shows the mutated object to validating webhooks", async () => {
    answers.set("/mutate", () => patchOf([{ op: "add", path: "/data/defaulted", value: "yes" }]));
    answers.set("/validate", (r) =>
      r.request.object?.data?.bad
        ? { allowed: false, status: { code: 403, message: "data.bad is not allowed" } }
        : { warnings: ["looked at it"] },
    );
    await configure([webhook("m.example.com", "/mutate")], [webhook("v.example.com", "/validate")]);

    const created = await http(
      cluster,
      "POST",
      "/api/v1/namespaces/hooked/configmaps",
      configMap({ a: "1" }),
    );
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: "1", defaulted: "yes" });
    expect(created.headers.get("warning")).toBe('299 - "looked at it"');
    expect(calls.map((c) => c.path)).toEqual(["/mutate", "/validate"]);
    expect(calls[1]!.object.data.defaulted).toBe("yes");
    const stored = await http(
      cluster,
      "GET",
      `/api/v1/namespaces/hooked/configmaps/${created.body.metadata.name}`,
    );
    expect(stored.body.data.defaulted).toBe("yes");

    const denied = await http(
      cluster,
      "POST",
      "/api/v1/namespaces/hooked/configmaps",
      configMap({ bad: "1" }),
    );
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'admission webhook "v.example.com" denied the request: data.bad is not allowed',
    );

    const patched = await http(
      cluster,
      "PATCH",
      `/api/v1/namespaces/hooked/configmaps/${created.body.metadata.name}`,
      { data: { bad: "x" } },
      { contentType: "application/merge-patch+json" },
    );
    expect(patched.status).toBe(403);
    calls.length = 0;
    const deleted = await http(
      cluster,
      "DELETE",
      `/api/v1/namespaces/hooked/configmaps/${created.body.metadata.name}`,
    );
    expect(deleted.status).toBe(200);
    expect(calls.map((c) => c.operation)).toEqual(["DELETE", "DELETE"]);
  });

  it("fails closed or open on an unreachable or slow webhook, per failurePolicy", async () => {
    answers.set("/slow", () => "hang");
    await configure([], [webhook("slow.example.com", "/slow", { timeoutSeconds: 1, failurePolicy: "Fail" })]);
    const failed = await http(cluster, "POST", "/api/v1/namespaces/hooked/configmaps", configMap({}));
    expect(failed.status).toBe(500);
    expect(failed.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: context deadline exceeded/,
    );

    await configure(
      [],
      [
        webhook("gone.example.com", "/x", {
          clientConfig: { url: "https://127.0.0.1:1/x", caBundle },
          failurePolicy: "Ignore",
        }),
      ],
    );
    expect((await http(cluster, "POST", "/api/v1/namespaces/hooked/configmaps", configMap({}))).status).toBe(
      201,
    );
  });

  it("calls only webhooks whose namespace and object selectors match", async () => {
    await configure(
      [],
      [
        webhook("ns.example.com", "/ns", { namespaceSelector: { matchLabels: { webhooks: "on" } } }),
        webhook("obj.example.com", "/obj", {
          objectSelector: { matchExpressions: [{ key: "checked", operator: "Exists" }] },
        }),
      ],
    );
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap({}));
    expect(calls.map((c) => c.path)).toEqual([]);
    await http(cluster, "POST", "/api/v1/namespaces/hooked/configmaps", configMap({}, { checked: "yes" }));
    expect(calls.map((c) => c.path).sort()).toEqual(["/ns", "/obj"]);
    await configure([], []);
  });

  it("converts objects read at another version through the CRD's conversion webhook", async () => {
    const version = (name: string, storage: boolean, field: string) => ({
      name,
      served: true,
      storage,
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: { spec: { type: "object", properties: { [field]: { type: "integer" } } } },
        },
      },
    });
    const crd = await http(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
        scope: "Namespaced",
        versions: [version("v1", true, "size"), version("v2", false, "replicas")],
        conversion: {
          strategy: "Webhook",
          webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: `${base}/convert`, caBundle } },
        },
      },
    });
    expect(crd.status).toBe(201);
    for (let i = 0; i < 100 && (await http(cluster, "GET", "/apis/example.com/v2")).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 20));
    const widget = (name: string) => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name },
      spec: { size: 3 },
    });
    expect(
      (await http(cluster, "POST", "/apis/example.com/v1/namespaces/default/widgets", widget("w"))).status,
    ).toBe(201);

    const v2 = await http(cluster, "GET", "/apis/example.com/v2/namespaces/default/widgets/w");
    expect(v2.body).toMatchObject({ apiVersion: "example.com/v2", kind: "Widget", spec: { replicas: 3 } });
    const list = await http(cluster, "GET", "/apis/example.com/v2/namespaces/default/widgets");
    expect(list.body.items.map((o: { spec: unknown }) => o.spec)).toEqual([{ replicas: 3 }]);
    calls.length = 0;
    expect(
      (await http(cluster, "GET", "/apis/example.com/v1/namespaces/default/widgets/w")).body.spec,
    ).toEqual({ size: 3 });
    expect(calls).toEqual([]);

    await http(cluster, "POST", "/apis/example.com/v1/namespaces/default/widgets", widget("fail"));
    const failed = await http(cluster, "GET", "/apis/example.com/v2/namespaces/default/widgets/fail");
    expect(failed.status).toBe(500);
    expect(failed.body.message).toBe(
      "Internal error occurred: conversion webhook for example.com/v2, Kind=Widget failed: cannot convert fail",
    );
  });
});
