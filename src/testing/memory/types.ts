// Shared shapes of the in-memory API server: JSON documents and resource definitions.

/** A Kubernetes object or any JSON document the server handles; shapes are dynamic by nature. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents from clients are dynamically shaped
export type KObj = Record<string, any>;

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** One served resource at one group/version (a CRD with two served versions yields two defs). */
export interface ResourceDef {
  group: string;
  version: string;
  /** Plural resource name, e.g. "deployments". */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Has a status subresource (status ignored on main writes, only status taken on status writes). */
  status: boolean;
  scale?: ScaleSubresource;
  /** Built-in kinds accept strategic merge patch; custom resources answer 415. */
  builtin: boolean;
  /** Sets metadata.generation and bumps it on spec changes. */
  generation: boolean;
  /** openAPIV3Schema of a CRD version: objects are pruned, defaulted and validated against it. */
  schema?: KObj;
  /** Name of the CRD that serves this def. */
  crdName?: string;
  /** This def is the CRD's storage version. */
  storageVersion?: boolean;
  /** All versions of a resource share one storage bucket: "group/resource". */
  storageKey: string;
  /** Field selectors accepted besides metadata.name / metadata.namespace. */
  selectableFields: string[];
  /** CRD additionalPrinterColumns (used for kubectl's Table output). */
  printerColumns?: KObj[];
  /** A virtual create-only resource answered by a function (e.g. SelfSubjectAccessReview). */
  virtual?: boolean;
}

/** The user a request is authenticated as. */
export interface UserInfo {
  name: string;
  groups: string[];
  /**
   * Authorized by RBAC (the stored Roles and bindings), as kube-apiserver does: set for users a
   * request impersonates (the operator's ServiceAccount). Others are allowed unless a forbid rule
   * or the authorize hook says otherwise.
   */
  rbac?: boolean;
}

/** What an authorization hook sees (mirrors the apiserver's authorizer attributes). */
export interface RequestAttributes {
  user: UserInfo;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}
