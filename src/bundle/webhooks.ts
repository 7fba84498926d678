// CSV webhook definitions (operator-sdk §2.7): admission webhooks from the webhook
// configurations, conversion webhooks from CRDs, each wired to the Deployment its Service selects.
import { asRecords, isRecord, type LoadedObject, nameOf, str } from "../manifests/index.js";
import type { Collected } from "./collect.js";

export interface WebhookNote {
  message: string;
}

function servicePorts(
  service: Record<string, unknown> | undefined,
  port: number,
): { containerPort: number; targetPort?: unknown } {
  const spec = isRecord(service?.spec) ? service.spec : {};
  const match = asRecords(spec.ports).find((p) => Number(p.port) === port);
  return {
    containerPort: port,
    ...(match && match.targetPort !== undefined ? { targetPort: match.targetPort } : {}),
  };
}

function selectedDeployment(
  service: Record<string, unknown> | undefined,
  deployments: readonly LoadedObject[],
): string | undefined {
  const spec = isRecord(service?.spec) ? service.spec : {};
  if (spec.type === "ExternalName" || !isRecord(spec.selector) || Object.keys(spec.selector).length === 0)
    return undefined;
  const selector = spec.selector;
  const hit = deployments.find((d) => {
    const labels = (
      ((d.object.spec as Record<string, unknown>)?.template as Record<string, unknown>)?.metadata as Record<
        string,
        unknown
      >
    )?.labels;
    return isRecord(labels) && Object.entries(selector).every(([k, v]) => labels[k] === v);
  });
  return hit ? nameOf(hit.object) : undefined;
}

function wire(
  serviceRef: Record<string, unknown>,
  c: Collected,
  notes: string[],
  what: string,
): Record<string, unknown> {
  const name = str(serviceRef.name);
  const service = c.services.find((s) => nameOf(s.object) === name)?.object;
  const port = typeof serviceRef.port === "number" ? serviceRef.port : 443;
  if (!service) notes.push(`no Service "${name}" found for ${what}; containerPort ${port} assumed`);
  const deployment = selectedDeployment(service, c.deployments) ?? name.replace(/-service$/, "");
  if (service && !selectedDeployment(service, c.deployments)) {
    notes.push(`Service "${name}" selects no Deployment; ${what} is wired to "${deployment}"`);
  }
  return {
    ...servicePorts(service, port),
    deploymentName: deployment,
    ...(typeof serviceRef.path === "string" ? { webhookPath: serviceRef.path } : {}),
  };
}

export function webhookDefinitions(c: Collected, notes: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const ordered = [
    ...c.webhooks.filter((w) => w.type === "ValidatingAdmissionWebhook"),
    ...c.webhooks.filter((w) => w.type === "MutatingAdmissionWebhook"),
  ];
  for (const { type, webhook } of ordered) {
    const reviewVersions =
      Array.isArray(webhook.admissionReviewVersions) && webhook.admissionReviewVersions.length > 0
        ? webhook.admissionReviewVersions
        : ["v1"];
    const def: Record<string, unknown> = {
      type,
      generateName: str(webhook.name),
      admissionReviewVersions: reviewVersions,
      sideEffects: webhook.sideEffects ?? "None",
    };
    for (const key of ["rules", "failurePolicy", "matchPolicy", "objectSelector", "timeoutSeconds"]) {
      if (webhook[key] !== undefined) def[key] = webhook[key];
    }
    if (type === "MutatingAdmissionWebhook" && webhook.reinvocationPolicy !== undefined) {
      def.reinvocationPolicy = webhook.reinvocationPolicy;
    }
    const clientConfig = isRecord(webhook.clientConfig) ? webhook.clientConfig : {};
    if (isRecord(clientConfig.service))
      Object.assign(def, wire(clientConfig.service, c, notes, `webhook ${str(webhook.name)}`));
    else
      notes.push(
        `webhook ${str(webhook.name)} has no clientConfig.service; OLM can only serve in-cluster webhooks`,
      );
    out.push(def);
  }
  // Conversion webhooks: CRDs served by the same Service port and path share one definition.
  const groups = new Map<string, { ref: Record<string, unknown>; crds: string[]; versions: unknown }>();
  for (const crd of c.crds) {
    const conversion = (crd.object.spec as Record<string, unknown> | undefined)?.conversion;
    if (!isRecord(conversion) || conversion.strategy !== "Webhook" || !isRecord(conversion.webhook)) continue;
    const ref = (conversion.webhook.clientConfig as Record<string, unknown> | undefined)?.service;
    if (!isRecord(ref)) continue;
    const key = `${str(ref.name)}|${ref.port ?? 443}|${str(ref.path)}`;
    const group = groups.get(key) ?? { ref, crds: [], versions: conversion.webhook.conversionReviewVersions };
    group.crds.push(nameOf(crd.object));
    groups.set(key, group);
  }
  for (const { ref, crds, versions } of groups.values()) {
    const sorted = [...crds].sort();
    out.push({
      type: "ConversionWebhook",
      generateName: `c${sorted.map((n) => n.split(".")[0]).join("")}.kb.io`,
      conversionCRDs: sorted,
      admissionReviewVersions: Array.isArray(versions) && versions.length > 0 ? versions : ["v1"],
      sideEffects: "None",
      ...wire(ref, c, notes, `conversion webhook for ${sorted.join(", ")}`),
    });
  }
  return out.sort((a, b) =>
    str(a.generateName) < str(b.generateName) ? -1 : str(a.generateName) > str(b.generateName) ? 1 : 0,
  );
}
