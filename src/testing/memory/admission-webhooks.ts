// Admission webhooks of the in-memory server, called the way kube-apiserver calls them: the
// stored Mutating- then ValidatingWebhookConfigurations (each sorted by name), every webhook whose
// rules, namespaceSelector and objectSelector match, POSTed an AdmissionReview v1 over HTTPS
// (clientConfig.url, caBundle trusted) with its timeoutSeconds; patches applied in order, denials
// and call failures (failurePolicy Fail) answered with the API server's messages. clientConfig.service
// cannot be reached from here: such a webhook fails its call (see localWebhookConfigurations).
import { randomUUID } from "node:crypto";
import { request } from "node:https";
import type { Engine } from "./engine.js";
import { jsonPatch } from "./patch.js";
import { labelSelectorToString, labelsMatch, parseLabelSelector } from "./selectors.js";
import { ApiError } from "./status.js";
import type { KObj, ResourceDef, UserInfo } from "./types.js";

export type Operation = "CREATE" | "UPDATE" | "DELETE";

export interface AdmissionCall {
  def: ResourceDef;
  operation: Operation;
  subresource: string;
  namespace: string;
  name: string;
  /** The object after the write (undefined for DELETE). */
  object: KObj | undefined;
  oldObject: KObj | undefined;
  dryRun: boolean;
  user: UserInfo;
}

interface Hook {
  configuration: string;
  webhook: KObj;
}

const CONFIG_KINDS = {
  mutating: "mutatingwebhookconfigurations",
  validating: "validatingwebhookconfigurations",
} as const;

function configurations(engine: Engine, type: keyof typeof CONFIG_KINDS): Hook[] {
  const def = engine.registry.find("admissionregistration.k8s.io", "v1", CONFIG_KINDS[type]);
  if (!def) return [];
  return engine.store
    .list(def.storageKey, "")
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .flatMap((c) =>
      ((c.webhooks ?? []) as KObj[]).map((webhook) => ({ configuration: c.metadata.name, webhook })),
    );
}

function listMatches(list: unknown, value: string): boolean {
  return Array.isArray(list) && (list.includes("*") || list.includes(value));
}

function resourceMatches(list: unknown, resource: string, subresource: string): boolean {
  if (!Array.isArray(list)) return false;
  const wanted = subresource ? `${resource}/${subresource}` : resource;
  return list.some(
    (r: string) =>
      r === wanted ||
      r === "*/*" ||
      (r === "*" && !subresource) ||
      (subresource !== "" && r === `${resource}/*`) ||
      (subresource !== "" && r === `*/${subresource}`),
  );
}

function ruleMatches(rule: KObj, call: AdmissionCall): boolean {
  const scope = rule.scope ?? "*";
  if (scope === "Cluster" && call.def.namespaced) return false;
  if (scope === "Namespaced" && !call.def.namespaced) return false;
  return (
    listMatches(rule.apiGroups, call.def.group) &&
    listMatches(rule.apiVersions, call.def.version) &&
    listMatches(rule.operations, call.operation) &&
    resourceMatches(rule.resources, call.def.resource, call.subresource)
  );
}

function selectorMatches(selector: KObj | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return true;
  return labelsMatch(labels ?? {}, parseLabelSelector(labelSelectorToString(selector)));
}

function namespaceLabels(engine: Engine, call: AdmissionCall): Record<string, string> | undefined | null {
  if (call.def.group === "" && call.def.resource === "namespaces")
    return (call.object ?? call.oldObject)?.metadata?.labels ?? {};
  if (!call.def.namespaced) return null;
  return engine.store.get("/namespaces", "", call.namespace)?.metadata?.labels ?? {};
}

function applies(engine: Engine, hook: Hook, call: AdmissionCall): boolean {
  const w = hook.webhook;
  if (!((w.rules ?? []) as KObj[]).some((rule) => ruleMatches(rule, call))) return false;
  const nsLabels = namespaceLabels(engine, call);
  if (nsLabels !== null && !selectorMatches(w.namespaceSelector, nsLabels ?? {})) return false;
  const objectSelector = w.objectSelector as KObj | undefined;
  return (
    selectorMatches(objectSelector, call.object?.metadata?.labels) ||
    (call.oldObject !== undefined && selectorMatches(objectSelector, call.oldObject.metadata?.labels))
  );
}

/** Whether any stored webhook configuration applies to the call (cheap: no network). */
export function hasAdmissionWebhooks(
  engine: Engine,
  call: Omit<AdmissionCall, "object" | "oldObject">,
): boolean {
  const probe = { ...call, object: undefined, oldObject: undefined };
  return [...configurations(engine, "mutating"), ...configurations(engine, "validating")].some((hook) =>
    ((hook.webhook.rules ?? []) as KObj[]).some((rule) => ruleMatches(rule, probe)),
  );
}

function review(call: AdmissionCall, object: KObj | undefined): KObj {
  const { def } = call;
  const kind = { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.resource };
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: randomUUID(),
      kind,
      resource,
      ...(call.subresource ? { subResource: call.subresource } : {}),
      requestKind: kind,
      requestResource: resource,
      name: call.name,
      ...(def.namespaced ? { namespace: call.namespace } : {}),
      operation: call.operation,
      userInfo: { username: call.user.name, groups: call.user.groups },
      object: object ?? null,
      oldObject: call.oldObject ?? null,
      dryRun: call.dryRun,
    },
  };
}

export function postReview(webhook: KObj, body: KObj): Promise<KObj> {
  const config = (webhook.clientConfig ?? {}) as KObj;
  if (typeof config.url !== "string") {
    const service = config.service as KObj | undefined;
    return Promise.reject(
      new Error(
        `the in-memory API server cannot reach Service ${service?.namespace ?? ""}/${service?.name ?? ""}; point the webhook at a URL (tsop/testing localWebhookConfigurations)`,
      ),
    );
  }
  const timeoutMs = Number(webhook.timeoutSeconds ?? 10) * 1000;
  const ca = typeof config.caBundle === "string" ? Buffer.from(config.caBundle, "base64") : undefined;
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      config.url as string,
      {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        timeout: timeoutMs,
        agent: false,
        ...(ca ? { ca } : {}),
      },
      (res) => {
        let data = "";
        res.on("data", (chunk) => (data += chunk));
        res.on("end", () => {
          if ((res.statusCode ?? 0) >= 300)
            return reject(
              new Error(`the server responded with HTTP ${res.statusCode}: ${data.slice(0, 200)}`),
            );
          try {
            resolve(JSON.parse(data) as KObj);
          } catch {
            reject(new Error("the response is not JSON"));
          }
        });
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`context deadline exceeded (timeout ${timeoutMs / 1000}s)`)),
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** kube-apiserver's message for a webhook that said no (webhookerrors.ToStatusErr). */
function denied(name: string, status: KObj | undefined): ApiError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const code = Number(status?.code ?? 0) < 400 ? 400 : Number(status?.code);
  const message = status?.message
    ? `${deniedBy}: ${status.message}`
    : status?.reason
      ? `${deniedBy}: ${status.reason}`
      : `${deniedBy} without explanation`;
  return new ApiError(code, message, typeof status?.reason === "string" ? status.reason : undefined);
}

async function callOne(hook: Hook, call: AdmissionCall, object: KObj | undefined): Promise<KObj | undefined> {
  const name = String(hook.webhook.name);
  try {
    const answer = await postReview(hook.webhook, review(call, object));
    const response = answer.response as KObj | undefined;
    if (!response || typeof response.allowed !== "boolean")
      throw new Error("the response has no response.allowed");
    return response;
  } catch (error) {
    if (hook.webhook.failurePolicy === "Ignore") return undefined;
    throw new ApiError(
      500,
      `Internal error occurred: failed calling webhook "${name}": failed to call webhook: ${(error as Error).message}`,
      "InternalError",
    );
  }
}

/**
 * Runs the matching mutating, then validating webhooks. Returns the object as mutated and the
 * warnings to send; throws the API server's error when a webhook denies or fails (policy Fail).
 */
export async function runAdmissionWebhooks(
  engine: Engine,
  call: AdmissionCall,
): Promise<{ object: KObj | undefined; warnings: string[] }> {
  let object = call.object ? structuredClone(call.object) : undefined;
  const warnings: string[] = [];
  for (const hook of configurations(engine, "mutating")) {
    if (!applies(engine, hook, { ...call, object })) continue;
    const response = await callOne(hook, call, object);
    if (!response) continue;
    warnings.push(...((response.warnings ?? []) as string[]));
    if (!response.allowed) throw denied(String(hook.webhook.name), response.status as KObj | undefined);
    if (response.patch && object && call.operation !== "DELETE") {
      const ops = JSON.parse(Buffer.from(String(response.patch), "base64").toString("utf8")) as unknown;
      object = jsonPatch(object, ops) as KObj;
    }
  }
  const validating = configurations(engine, "validating").filter((hook) =>
    applies(engine, hook, { ...call, object }),
  );
  const responses = await Promise.all(validating.map((hook) => callOne(hook, call, object)));
  for (const [i, response] of responses.entries()) {
    if (!response) continue;
    warnings.push(...((response.warnings ?? []) as string[]));
    if (!response.allowed)
      throw denied(String(validating[i]!.webhook.name), response.status as KObj | undefined);
  }
  return { object, warnings };
}

/** HTTP Warning headers as the API server sends them. */
export function warningHeaders(warnings: readonly string[]): Record<string, string> {
  if (warnings.length === 0) return {};
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ") };
}
