// Conversion webhooks of the in-memory server: objects are stored at the version they were written
// at; a read at another version of a CRD with `conversion.strategy: Webhook` sends them in one
// ConversionReview (apiextensions.k8s.io/v1) to the CRD's webhook and serves what it returns, with
// kube-apiserver's checks (same count, the desired apiVersion, metadata kept by the server).
import { randomUUID } from "node:crypto";
import { postReview } from "./admission-webhooks.js";
import { groupVersion, type Engine } from "./engine.js";
import { ApiError } from "./status.js";
import type { KObj, ResourceDef } from "./types.js";

/** The CRD's conversion webhook, when the def's CRD converts through one. */
export function conversionWebhookOf(engine: Engine, def: ResourceDef): KObj | undefined {
  if (def.builtin || !def.crdName) return undefined;
  const crd = engine.store.get("apiextensions.k8s.io/customresourcedefinitions", "", def.crdName);
  const conversion = crd?.spec?.conversion as KObj | undefined;
  return conversion?.strategy === "Webhook" ? ((conversion.webhook ?? {}) as KObj) : undefined;
}

/** The stored objects as served at def's version, converted by the webhook where versions differ. */
export async function convertForRead(engine: Engine, def: ResourceDef, stored: KObj[]): Promise<KObj[]> {
  const desired = groupVersion(def);
  const webhook = conversionWebhookOf(engine, def);
  const foreign = stored.filter((o) => o.apiVersion !== desired);
  if (!webhook || foreign.length === 0) return stored.map((o) => engine.present(def, o));
  const fail = (why: string) =>
    new ApiError(
      500,
      `Internal error occurred: conversion webhook for ${desired}, Kind=${def.kind} failed: ${why}`,
      "InternalError",
    );
  let answer: KObj;
  try {
    answer = await postReview(
      { clientConfig: webhook.clientConfig, timeoutSeconds: 30 },
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: { uid: randomUUID(), desiredAPIVersion: desired, objects: foreign },
      },
    );
  } catch (error) {
    throw fail((error as Error).message);
  }
  const response = (answer.response ?? {}) as KObj;
  if (response.result?.status !== "Success")
    throw fail(String(response.result?.message ?? "no Success result"));
  const converted = (response.convertedObjects ?? []) as KObj[];
  if (converted.length !== foreign.length)
    throw fail(`returned ${converted.length} objects, expected ${foreign.length}`);
  const wrong = converted.find((o) => o.apiVersion !== desired);
  if (wrong) throw fail(`invalid apiVersion "${String(wrong.apiVersion)}", expected "${desired}"`);
  let next = 0;
  return stored.map((o) => {
    if (o.apiVersion === desired) return engine.present(def, o);
    const out = converted[next++]!;
    return { ...out, kind: def.kind, metadata: structuredClone(o.metadata) };
  });
}
