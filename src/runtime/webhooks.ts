// Webhook declarations: @MutatingWebhook and @ValidatingWebhook on a handler class say where the
// API server calls it and for which requests (the counterpart of kubebuilder's
// +kubebuilder:webhook marker); @ConversionWebhook names the hub version of a multi-version kind.
// `tsop generate` reads the options statically into config/webhook/manifests.yaml; at run time
// they only record the options so Manager.addWebhook can route requests to the handler.

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT" | "*";

/** Options shared by mutating and validating webhooks (admissionregistration.k8s.io/v1 fields). */
export interface AdmissionWebhookOptions {
  /** URL path the webhook server serves this webhook at, e.g. "/mutate-cache-example-com-v1alpha1-memcached". */
  path: string;
  /** Webhook name, a fully qualified DNS name, e.g. "mmemcached-v1alpha1.kb.io". */
  name: string;
  /** API groups of the objects ("" for the core group). */
  groups: readonly string[];
  versions: readonly string[];
  /** Resources (plural names), e.g. ["memcacheds"]. */
  resources: readonly string[];
  /** Default ["CREATE", "UPDATE"]. */
  operations?: readonly AdmissionOperation[];
  /** What the API server does when the webhook cannot be called. Default "Fail". */
  failurePolicy?: "Fail" | "Ignore";
  /** Default "None": the webhook has no side effects. */
  sideEffects?: "None" | "NoneOnDryRun";
  /** Default ["v1"]. */
  admissionReviewVersions?: readonly string[];
  matchPolicy?: "Exact" | "Equivalent";
  /** 1–30 seconds; the API server's default is 10. */
  timeoutSeconds?: number;
}

export interface MutatingWebhookOptions extends AdmissionWebhookOptions {
  reinvocationPolicy?: "Never" | "IfNeeded";
}

export type ValidatingWebhookOptions = AdmissionWebhookOptions;

export interface ConversionWebhookOptions {
  /** API group of the kind, e.g. "cache.example.com". */
  group: string;
  kind: string;
  /** The version every other version converts through (usually the storage version). */
  hub: string;
  /** URL path; default "/convert" (shared by every kind's conversion). */
  path?: string;
}

/** What a webhook handler is told about the request besides the object. */
export interface AdmissionRequest {
  uid: string;
  operation: AdmissionOperation;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  name?: string;
  namespace?: string;
  dryRun?: boolean;
  userInfo?: { username?: string; uid?: string; groups?: string[] };
}

/** Strings shown to the client (kubectl prints them as "Warning: …"). */
export type Warnings = readonly string[] | void | undefined;

/** A defaulting webhook: set defaults on `obj` in place; tsop computes the JSON patch. */
export interface Defaulter<T> {
  default(obj: T, request: AdmissionRequest): void | Promise<void>;
}

/**
 * A validating webhook: throw to reject the request (the error's message is what the client sees),
 * return warnings (or nothing) to allow it.
 */
export interface Validator<T> {
  validateCreate(obj: T, request: AdmissionRequest): Warnings | Promise<Warnings>;
  validateUpdate(obj: T, old: T, request: AdmissionRequest): Warnings | Promise<Warnings>;
  validateDelete(obj: T, request: AdmissionRequest): Warnings | Promise<Warnings>;
}

/** Converts one spoke version to and from the hub. */
export interface Spoke<Hub, S> {
  toHub(spoke: S): Hub;
  fromHub(hub: Hub): S;
}

/** A conversion webhook: one Spoke per version other than the hub, keyed by version name. */
export interface Converter<Hub> {
  // Spokes have unrelated types; each entry is typed where it is written.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly spokes: Readonly<Record<string, Spoke<Hub, any>>>;
}

/**
 * Rejects an admission request with a chosen HTTP code (default 403) and warnings. Any other error
 * thrown by a validator rejects with code 403 and its message too.
 */
export class AdmissionDenied extends Error {
  readonly code: number;
  readonly warnings: readonly string[];
  constructor(message: string, options: { code?: number; warnings?: readonly string[] } = {}) {
    super(message);
    this.name = "AdmissionDenied";
    this.code = options.code ?? 403;
    this.warnings = options.warnings ?? [];
  }
}

export interface WebhookDeclarations {
  mutating: MutatingWebhookOptions[];
  validating: ValidatingWebhookOptions[];
  conversion: ConversionWebhookOptions[];
}

// Decorators receive arbitrary class constructors.
type AnyClass = Function;
type ClassDecorator = (target: AnyClass, context?: unknown) => void;

const declarations = new WeakMap<AnyClass, WebhookDeclarations>();

function record(target: AnyClass, add: (d: WebhookDeclarations) => void): void {
  const d = declarations.get(target) ?? { mutating: [], validating: [], conversion: [] };
  add(d);
  declarations.set(target, d);
}

/** The class is a defaulting webhook (it has `default(obj)`); read by `tsop generate`. */
export function MutatingWebhook(options: MutatingWebhookOptions): ClassDecorator {
  return (target) => record(target, (d) => d.mutating.push(options));
}

/** The class is a validating webhook (validateCreate/Update/Delete); read by `tsop generate`. */
export function ValidatingWebhook(options: ValidatingWebhookOptions): ClassDecorator {
  return (target) => record(target, (d) => d.validating.push(options));
}

/** The class converts a multi-version kind through its hub version (it has `spokes`). */
export function ConversionWebhook(options: ConversionWebhookOptions): ClassDecorator {
  return (target) => record(target, (d) => d.conversion.push(options));
}

/** The webhook decorators recorded on a class (empty lists for other classes). */
export function webhooksOf(target: AnyClass): WebhookDeclarations {
  return declarations.get(target) ?? { mutating: [], validating: [], conversion: [] };
}
