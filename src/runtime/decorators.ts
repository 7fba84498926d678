// Class decorators that declare custom resources and RBAC. `tsop generate` reads them statically
// from the source; at run time they only record what the runtime needs (a class's
// group/version/kind/plural) and otherwise leave the class alone. Each works both as a TypeScript 5
// standard decorator `(value, context)` and as a legacy experimentalDecorators one `(target)`.
import { defaultPlural } from "../common/plural.js";

export type Scope = "Namespaced" | "Cluster";

export interface CustomResourceOptions {
  group: string;
  version: string;
  /** Defaults to the class name. */
  kind?: string;
  /** Defaults to the lowercased plural of the kind (flect rules). */
  plural?: string;
  singular?: string;
  scope?: Scope;
  shortNames?: readonly string[];
  categories?: readonly string[];
  listKind?: string;
  /** Extra metadata put on the generated CRD. */
  annotations?: Readonly<Record<string, string>>;
  labels?: Readonly<Record<string, string>>;
  /** Field paths users can filter on with field selectors (CRD selectableFields). */
  selectableFields?: readonly string[];
  /** Whether this version is served (default true). */
  served?: boolean;
  /** Whether this version is the storage version (see also @StorageVersion). */
  storage?: boolean;
  /** Marks the version deprecated with this warning. */
  deprecationWarning?: string;
}

export interface ScaleOptions {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface PrinterColumnOptions {
  name: string;
  type: "integer" | "number" | "string" | "boolean" | "date";
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export type RbacVerb =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection"
  | "*"
  | (string & {});

export interface RbacOptions {
  /** API groups; "" or "core" for the core group. */
  groups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  verbs: readonly RbacVerb[];
  /** Non-resource URLs (ClusterRole only). */
  urls?: readonly string[];
  /** Put the rule in a namespaced Role in this namespace instead of the ClusterRole. */
  namespace?: string;
  roleName?: string;
}

/** What the runtime knows about a custom resource class. */
export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  apiVersion: string;
}

// Decorators receive arbitrary class constructors.
type AnyClass = Function;
type ClassDecorator = (target: AnyClass, context?: unknown) => void;

const resources = new WeakMap<AnyClass, ResourceInfo>();
const rbacRules = new WeakMap<AnyClass, RbacOptions[]>();

/** The name of the decorated class in either decorator mode. */
function className(target: AnyClass, context: unknown): string {
  const name = (context as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : target.name;
}

export function CustomResource(options: CustomResourceOptions): ClassDecorator {
  return (target, context) => {
    const kind = options.kind ?? className(target, context);
    resources.set(target, {
      group: options.group,
      version: options.version,
      kind,
      plural: options.plural ?? defaultPlural(kind),
      namespaced: (options.scope ?? "Namespaced") === "Namespaced",
      apiVersion: options.group ? `${options.group}/${options.version}` : options.version,
    });
  };
}

const noop: ClassDecorator = () => {};

/** Enables the status subresource. */
export function Status(): ClassDecorator {
  return noop;
}
/** Enables the scale subresource. */
export function Scale(_options: ScaleOptions): ClassDecorator {
  return noop;
}
/** Adds an additional printer column (kubectl get); repeatable, kept in source order. */
export function PrinterColumn(_options: PrinterColumnOptions): ClassDecorator {
  return noop;
}
/** Marks this version as the storage version when a kind has several versions. */
export function StorageVersion(): ClassDecorator {
  return noop;
}
/** Marks this version as not served. */
export function Unserved(): ClassDecorator {
  return noop;
}
/** Marks this version as deprecated, with an optional warning returned to clients. */
export function Deprecated(_warning?: string): ClassDecorator {
  return noop;
}
/** Leaves this version out of the generated CRD. */
export function SkipVersion(): ClassDecorator {
  return noop;
}

/** Declares a permission the operator needs; repeatable. Read by `tsop generate rbac`. */
export function Rbac(options: RbacOptions): ClassDecorator {
  return (target) => {
    const list = rbacRules.get(target) ?? [];
    list.push(options);
    rbacRules.set(target, list);
  };
}

/** The group/version/kind/plural recorded by @CustomResource, or undefined for other classes. */
export function resourceInfo(target: AnyClass): ResourceInfo | undefined {
  return resources.get(target);
}

/** The @Rbac declarations recorded on a class, in application order. */
export function rbacOf(target: AnyClass): readonly RbacOptions[] {
  return rbacRules.get(target) ?? [];
}
