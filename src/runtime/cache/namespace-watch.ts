// The namespaces cache.namespaceSelector selects, kept current by one watch of Namespaces with that
// label selector (the API server filters: a namespace that loses a label arrives as DELETED, one
// that gains it as ADDED). Subscribers (selected-namespace-informers.ts) open and close their
// per-namespace informers as namespaces come and go.
import { LabelSelectorError, parseLabelSelector } from "../../common/label-selector.js";
import { ConfigError } from "../connect/errors.js";
import type { ResourceMapping } from "../connect/mapper.js";
import { Informer, type InformerSettings } from "./informer.js";

/** A Kubernetes label selector (metav1.LabelSelector), or its string form ("a=b,c in (d)"). */
export type NamespaceSelector =
  | string
  | {
      matchLabels?: Record<string, string>;
      matchExpressions?: Array<{
        key: string;
        operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
        values?: string[];
      }>;
    };

const NAMESPACE_MAPPING: ResourceMapping = {
  apiVersion: "v1",
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  namespaced: false,
};

/** The selector as the API server's query syntax; a ConfigError naming cache.namespaceSelector if invalid. */
export function namespaceSelectorString(selector: NamespaceSelector): string {
  const bad = (why: string) =>
    new ConfigError(`cache.namespaceSelector is invalid: ${why}`, {
      hint: 'use { matchLabels: { "tsop.io/watched": "true" } }, matchExpressions (In, NotIn, Exists, DoesNotExist) or "key=value,key2 in (a,b)"',
    });
  let text: string;
  if (typeof selector === "string") text = selector;
  else {
    const terms = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
    for (const e of selector.matchExpressions ?? []) {
      const values = `(${(e.values ?? []).join(",")})`;
      if (e.operator === "In") terms.push(`${e.key} in ${values}`);
      else if (e.operator === "NotIn") terms.push(`${e.key} notin ${values}`);
      else if (e.operator === "Exists") terms.push(e.key);
      else if (e.operator === "DoesNotExist") terms.push(`!${e.key}`);
      else throw bad(`matchExpressions operator "${String(e.operator)}" of key "${e.key}"`);
    }
    text = terms.join(",");
  }
  if (text.trim() === "") throw bad("it selects every namespace (empty)");
  try {
    parseLabelSelector(text);
  } catch (err) {
    if (err instanceof LabelSelectorError) throw bad(`"${text}": ${err.message}`);
    throw err;
  }
  return text;
}

export interface NamespaceListener {
  added(namespace: string): void;
  removed(namespace: string): void;
}

export class NamespaceWatch {
  private readonly informer: Informer;
  private readonly listeners = new Set<NamespaceListener>();

  constructor(rest: ConstructorParameters<typeof Informer>[0], selector: string, settings: InformerSettings) {
    this.informer = new Informer(rest, NAMESPACE_MAPPING, {
      ...settings,
      logger: settings.logger.named("namespace-watch"),
      labelSelector: selector,
    });
    const tell = (what: keyof NamespaceListener, name: string | undefined) => {
      if (name) for (const l of [...this.listeners]) l[what](name);
    };
    this.informer.addHandler({
      onAdd: (ns) => tell("added", ns.metadata?.name),
      onDelete: (ns) => tell("removed", ns.metadata?.name),
    });
  }

  start(): void {
    this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  waitForSync(): Promise<void> {
    return this.informer.waitForSync();
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  has(namespace: string): boolean {
    return this.informer.get({ name: namespace }) !== undefined;
  }

  /** The selected namespaces now, sorted. */
  names(): string[] {
    return this.informer
      .list()
      .map((ns) => ns.metadata?.name ?? "")
      .filter(Boolean)
      .sort();
  }

  subscribe(listener: NamespaceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  health(now?: number) {
    return this.informer.health(now);
  }
}
