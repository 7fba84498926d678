// Kind → REST resource: which plural and whether namespaced. @CustomResource classes know their own
// mapping; everything else is looked up once per group/version through API discovery (refreshed on
// a miss, so CRDs installed after start are found).
import { resourceInfo } from "../decorators.js";
import { TsopError } from "../../common/errors.js";
import { NoKindMatchError } from "./errors.js";
import type { RestClient } from "./rest.js";

export interface GroupVersionKind {
  apiVersion: string;
  kind: string;
}

export interface ResourceMapping {
  apiVersion: string;
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface ObjectKey {
  /** Empty or absent for cluster-scoped objects. */
  namespace?: string;
  name: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- class constructors of any shape
export type KindClass<T = unknown> = abstract new (...args: any[]) => T;
/** A @CustomResource class or an { apiVersion, kind } pair. */
export type KindRef<T = unknown> = KindClass<T> | GroupVersionKind;

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The apiVersion/kind named by a ref (for a class: from @CustomResource). */
export function gvkOf(ref: KindRef): GroupVersionKind {
  if (typeof ref === "function") {
    const info = resourceInfo(ref);
    if (!info)
      throw new TsopError(`class ${ref.name} has no @CustomResource decorator`, {
        hint: "decorate it with @CustomResource({ group, version }) or pass { apiVersion, kind }",
      });
    return { apiVersion: info.apiVersion, kind: info.kind };
  }
  return { apiVersion: ref.apiVersion, kind: ref.kind };
}

interface DiscoveryList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean }>;
}

export class RestMapper {
  private readonly cache = new Map<string, Promise<Map<string, ResourceMapping>>>();
  private readonly fixed = new Map<string, ResourceMapping>();

  constructor(private readonly rest: RestClient) {}

  async mapping(ref: KindRef): Promise<ResourceMapping> {
    if (typeof ref === "function") {
      const info = resourceInfo(ref);
      if (info) return { ...info };
    }
    const gvk = gvkOf(ref);
    const key = `${gvk.apiVersion}/${gvk.kind}`;
    const known = this.fixed.get(key);
    if (known) return known;
    let found = (await this.discover(gvk.apiVersion, false)).get(gvk.kind);
    if (!found) found = (await this.discover(gvk.apiVersion, true)).get(gvk.kind);
    if (!found) throw new NoKindMatchError(gvk.apiVersion, gvk.kind);
    return found;
  }

  /** Registers a mapping without discovery (used for kinds whose CRD may not exist yet). */
  register(mapping: ResourceMapping): void {
    this.fixed.set(`${mapping.apiVersion}/${mapping.kind}`, mapping);
  }

  private discover(apiVersion: string, refresh: boolean): Promise<Map<string, ResourceMapping>> {
    let entry = this.cache.get(apiVersion);
    if (!entry || refresh) {
      const { group, version } = splitApiVersion(apiVersion);
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      entry = this.rest.request<DiscoveryList>("GET", path).then(
        (list) => {
          const map = new Map<string, ResourceMapping>();
          for (const r of list.resources ?? []) {
            if (r.name.includes("/")) continue; // subresources
            map.set(r.kind, {
              apiVersion,
              group,
              version,
              kind: r.kind,
              plural: r.name,
              namespaced: r.namespaced,
            });
          }
          return map;
        },
        (err: unknown) => {
          this.cache.delete(apiVersion);
          if ((err as { status?: number }).status === 404) return new Map<string, ResourceMapping>();
          throw err;
        },
      );
      this.cache.set(apiVersion, entry);
    }
    return entry;
  }
}

/** The REST path of a collection or an object (optionally a subresource). */
export function resourcePath(
  m: ResourceMapping,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  let path = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`;
  if (m.namespaced && namespace) path += `/namespaces/${pathSegment(namespace)}`;
  path += `/${m.plural}`;
  if (name !== undefined) path += `/${pathSegment(name)}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

/** Escapes a path segment as Go's url package does (":" and "@" stay, e.g. "system:controller:x"). */
export function pathSegment(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ":").replace(/%40/g, "@");
}
