// Webhook manifests from @MutatingWebhook / @ValidatingWebhook on handler classes (the counterpart
// of controller-gen's `webhook` generator over +kubebuilder:webhook markers): each decorator is
// evaluated statically, checked, and becomes one webhook of the Mutating- or
// ValidatingWebhookConfiguration, calling the webhook-service Service at its path.
import type TS from "typescript";
import type { Diagnostics } from "../diagnostics.js";
import { classesOf, evaluateArg, tsopDecorators } from "../crd/collect.js";
import { suggest } from "../markers.js";
import { msg } from "../messages.js";

export const WEBHOOK_DECORATORS = ["MutatingWebhook", "ValidatingWebhook", "ConversionWebhook"] as const;

export interface WebhookDeclaration {
  type: "mutating" | "validating";
  webhook: Record<string, unknown>;
}

const COMMON = [
  "path",
  "name",
  "groups",
  "versions",
  "resources",
  "operations",
  "failurePolicy",
  "sideEffects",
  "admissionReviewVersions",
  "matchPolicy",
  "timeoutSeconds",
];
const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT", "*"];
const CHOICES: Record<string, readonly string[]> = {
  failurePolicy: ["Fail", "Ignore"],
  sideEffects: ["None", "NoneOnDryRun"],
  matchPolicy: ["Exact", "Equivalent"],
  reinvocationPolicy: ["Never", "IfNeeded"],
};
const CONVERSION_FIELDS = ["group", "kind", "hub", "path"];

/** Reads one decorator's options; every problem is reported at the decorator. */
function readOptions(
  decorator: string,
  value: unknown,
  at: TS.Node,
  diags: Diagnostics,
): Record<string, unknown> | undefined {
  const bad = (text: string) => {
    diags.at(at, msg.badOption(decorator, text));
    return undefined;
  };
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return bad("expects an options object { path, name, groups, versions, resources, … }");
  const o = value as Record<string, unknown>;
  const known = decorator === "MutatingWebhook" ? [...COMMON, "reinvocationPolicy"] : COMMON;
  let ok = true;
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) {
      const hint = suggest(key, known);
      bad(`unknown option '${key}'${hint ? `; did you mean '${hint}'?` : ""}`);
      ok = false;
    }
  }
  for (const key of ["path", "name"]) {
    if (typeof o[key] !== "string" || o[key] === "") {
      bad(`'${key}' is required and must be a non-empty string`);
      ok = false;
    }
  }
  if (typeof o.path === "string" && !o.path.startsWith("/")) ok = !!bad(`'path' must start with "/"`);
  for (const key of ["groups", "versions", "resources", "operations", "admissionReviewVersions"]) {
    const v = o[key];
    const required = key === "groups" || key === "versions" || key === "resources";
    if (v === undefined && !required) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string") || (required && v.length === 0)) {
      bad(`'${key}' must be a ${required ? "non-empty " : ""}list of strings`);
      ok = false;
    }
  }
  for (const op of (Array.isArray(o.operations) ? o.operations : []) as string[]) {
    if (!OPERATIONS.includes(op)) ok = !!bad(`unknown operation '${op}'; use ${OPERATIONS.join(", ")}`);
  }
  for (const [key, choices] of Object.entries(CHOICES)) {
    if (o[key] !== undefined && !choices.includes(o[key] as string))
      ok = !!bad(`'${key}' must be one of ${choices.join(", ")}`);
  }
  const timeout = o.timeoutSeconds;
  if (
    timeout !== undefined &&
    (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < 1 || timeout > 30)
  )
    ok = !!bad("'timeoutSeconds' must be an integer from 1 to 30");
  return ok ? o : undefined;
}

function webhookEntry(o: Record<string, unknown>, mutating: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    admissionReviewVersions: o.admissionReviewVersions ?? ["v1"],
    clientConfig: { service: { name: "webhook-service", namespace: "system", path: o.path } },
    failurePolicy: o.failurePolicy ?? "Fail",
    name: o.name,
    rules: [
      {
        apiGroups: o.groups,
        apiVersions: o.versions,
        operations: o.operations ?? ["CREATE", "UPDATE"],
        resources: o.resources,
      },
    ],
    sideEffects: o.sideEffects ?? "None",
  };
  for (const key of ["matchPolicy", "timeoutSeconds", ...(mutating ? ["reinvocationPolicy"] : [])])
    if (o[key] !== undefined) entry[key] = o[key];
  return entry;
}

/** Every admission webhook declared in the program; @ConversionWebhook options are checked only. */
export function collectWebhooks(
  files: readonly TS.SourceFile[],
  checker: TS.TypeChecker,
  diags: Diagnostics,
): WebhookDeclaration[] {
  const out: WebhookDeclaration[] = [];
  const names = new Map<string, TS.Node>();
  for (const cls of classesOf(files)) {
    for (const use of tsopDecorators(cls, checker)) {
      if (!(WEBHOOK_DECORATORS as readonly string[]).includes(use.name)) continue;
      const at = use.args[0] ?? use.call;
      const value = evaluateArg(checker, diags, use.args[0]);
      if (value === undefined) continue;
      if (use.name === "ConversionWebhook") {
        checkConversion(value, at, diags);
        continue;
      }
      const o = readOptions(use.name, value, at, diags);
      if (!o) continue;
      const name = String(o.name);
      if (names.has(name)) {
        diags.at(at, msg.badOption(use.name, `webhook name '${name}' is declared twice`));
        continue;
      }
      names.set(name, at);
      const mutating = use.name === "MutatingWebhook";
      out.push({ type: mutating ? "mutating" : "validating", webhook: webhookEntry(o, mutating) });
    }
  }
  return out;
}

function checkConversion(value: unknown, at: TS.Node, diags: Diagnostics): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    diags.at(at, msg.badOption("ConversionWebhook", "expects an options object { group, kind, hub, path? }"));
    return;
  }
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!CONVERSION_FIELDS.includes(key))
      diags.at(at, msg.badOption("ConversionWebhook", `unknown option '${key}'`));
  for (const key of ["group", "kind", "hub"])
    if (typeof o[key] !== "string" || o[key] === "")
      diags.at(at, msg.badOption("ConversionWebhook", `'${key}' is required and must be a non-empty string`));
}

/** The configuration objects, webhooks sorted by name (controller-gen's order). */
export function webhookConfigurations(declared: readonly WebhookDeclaration[]): Record<string, unknown>[] {
  const configs: Record<string, unknown>[] = [];
  for (const [type, kind, name] of [
    ["mutating", "MutatingWebhookConfiguration", "mutating-webhook-configuration"],
    ["validating", "ValidatingWebhookConfiguration", "validating-webhook-configuration"],
  ] as const) {
    const webhooks = declared
      .filter((d) => d.type === type)
      .map((d) => d.webhook)
      .sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
    if (webhooks.length === 0) continue;
    configs.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind,
      metadata: { name },
      webhooks,
    });
  }
  return configs;
}
