// Every user-facing codegen message, with its stable code and hint. Codes never change meaning;
// tests assert codes and positions, docs/generate.md lists them.
import type { Message } from "./diagnostics.js";

const warn = (m: Message): Message => ({ ...m, severity: "warning" });

/** The manager's ServiceAccount as the scaffold names it (rbac/normalize.ts MANAGER_SUBJECT). */
const MANAGER_SA = "controller-manager (namespace system)";

export const msg = {
  tsSyntax: (text: string): Message => ({
    code: "TSOP1000",
    message: `TypeScript syntax error: ${text}`,
    hint: "fix the syntax (tsc reports the same); decorators are not allowed on interface members: use JSDoc tags (@minimum 1) there",
  }),
  notConstant: (what: string): Message => ({
    code: "TSOP1001",
    message: `decorator argument '${what}' must be a compile-time constant`,
    hint: "use literals, `as const` objects, enum members or `const` declarations (also imported ones); tsop never runs your code",
  }),
  badOption: (decorator: string, text: string): Message => ({
    code: "TSOP1002",
    message: `@${decorator}: ${text}`,
  }),
  recursive: (typeName: string, path: string): Message => ({
    code: "TSOP1010",
    message: `recursive type ${typeName}: ${path}`,
    hint: "CRD schemas cannot contain $ref; use JSONValue or @preserveUnknownFields for the recursive field, or limit the depth with separate types",
  }),
  anyType: (text: string): Message => ({
    code: "TSOP1011",
    message: `cannot generate a schema for '${text}'`,
    hint: "use an explicit type, JSONValue (any JSON) or Unstructured / @preserveUnknownFields (an object kept as is)",
  }),
  unsupported: (text: string, hint: string): Message => ({
    code: "TSOP1012",
    message: `unsupported type '${text}' in a CRD schema`,
    hint,
  }),
  tuple: (text: string): Message => ({
    code: "TSOP1013",
    message: `tuple type '${text}' cannot be expressed in a structural schema`,
    hint: "use an array (T[]) with @minItems/@maxItems, or an object with named fields",
  }),
  objectUnion: (text: string): Message => ({
    code: "TSOP1014",
    message: `union '${text}' cannot be expressed in a structural schema`,
    hint: "use one object type with optional members and @exactlyOneOf / @atMostOneOf on it, or IntOrString for number | string",
  }),
  mixedEnum: (text: string, kinds: readonly string[]): Message => ({
    code: "TSOP1015",
    message: `enum '${text}' mixes ${kinds.join(" and ")}`,
    hint: kinds.includes("booleans")
      ? `a schema enum needs one type: make every member a string (e.g. "true" | "false" | "auto"), or split the field`
      : "a schema enum needs one type: use only string or only numeric members",
  }),
  typeParameter: (name: string): Message => ({
    code: "TSOP1016",
    message: `free type parameter '${name}' reaches the schema`,
    hint: "instantiate the generic with concrete types (e.g. KubeObject<MySpec, MyStatus>)",
  }),
  indexSignature: (text: string): Message => ({
    code: "TSOP1017",
    message: text,
    hint: "a structural schema has either properties or additionalProperties: move the extra keys into a Record<string, T> field",
  }),
  intersectionConflict: (prop: string, a: string, b: string): Message => ({
    code: "TSOP1018",
    message: `conflicting types for property '${prop}' in an intersection: ${a} vs ${b}`,
    hint: "give the property one type in every part of the intersection",
  }),
  unresolved: (text: string): Message => ({
    code: "TSOP1019",
    message: `cannot resolve type '${text}'`,
    hint: "check the import and the tsconfig (paths, include); `tsc --noEmit` shows the TypeScript error",
  }),
  unresolvedModule: (name: string): Message => ({
    code: "TSOP1019",
    message: `cannot resolve module '${name}'`,
    hint:
      name === "tsop" || name.startsWith("tsop/")
        ? 'tsop\'s declarations come from node_modules/tsop: run `npm install` in the project (or map "tsop" with tsconfig paths)'
        : `install it (\`npm install\`), or fix the import and the tsconfig (paths); \`tsc --noEmit\` shows the same error`,
  }),
  decoratorOnNonClass: (name: string, place: string): Message => ({
    code: "TSOP1034",
    message: `@${name} on ${place}: tsop's class decorators only work on classes, so nothing would be generated from it`,
    hint: `declare it as \`export class … extends KubeObject<Spec, Status> {}\` with @${name}`,
  }),
  kubebuilderMarker: (marker: string, equivalent: string): Message => ({
    code: "TSOP1038",
    severity: "warning",
    message: `kubebuilder marker '${marker}' is ignored: tsop reads JSDoc tags and decorators`,
    hint: `tsop's equivalent: ${equivalent}`,
  }),
  float: (where: string): Message =>
    warn({
      code: "TSOP1020",
      message: `${where} is 'number': mapped to 'type: number' (floating point)`,
      hint: "use Int32, Int64 or Integer for whole numbers, or Float64 to say a float is intended",
    }),
  date: (): Message =>
    warn({
      code: "TSOP1021",
      message: "Date maps to 'type: string, format: date-time', but the API sends a string, not a Date",
      hint: "use DateTime from tsop",
    }),
  bareUndefined: (prop: string): Message =>
    warn({
      code: "TSOP1022",
      message: `property '${prop}' has '| undefined' without '?': treated as optional`,
      hint: `write '${prop}?:' instead`,
    }),
  computedName: (text: string): Message => ({
    code: "TSOP1023",
    message: `property name ${text} is computed or a symbol; JSON objects need string keys`,
    hint: "use an identifier or a quoted string as the property name",
  }),
  protoName: (owner: string): Message => ({
    code: "TSOP1024",
    message: `property name __proto__ (${owner}) cannot be a CRD field: JavaScript objects take it as the prototype, so it would be silently dropped`,
    hint: "rename the field (e.g. proto); a JSON key named __proto__ is also dropped by JavaScript clients",
  }),
  markerTarget: (marker: string, expected: string, found: string): Message => ({
    code: "TSOP1030",
    message: `must apply @${marker} to ${expected}, found ${found}`,
    hint: "move the tag to a field of a matching type, or change the field's type",
  }),
  nonIntegral: (marker: string, value: number): Message => ({
    code: "TSOP1031",
    message: `cannot apply non-integral @${marker} (${value}) to an integer`,
    hint: "use a whole number, or Float64 for the field",
  }),
  markerValue: (marker: string, text: string, usage: string): Message => ({
    code: "TSOP1032",
    message: `@${marker}: ${text}`,
    hint: `usage: ${usage}`,
  }),
  unknownTag: (tag: string, suggestion: string): Message =>
    warn({
      code: "TSOP1033",
      message: `unknown tag @${tag}; did you mean @${suggestion}?`,
      hint: "tsop generate --list-markers lists every tag",
    }),
  wrongPlace: (marker: string, where: string, allowed: string): Message => ({
    code: "TSOP1034",
    message: `@${marker} cannot be used on ${where}`,
    hint: `it belongs on ${allowed}`,
  }),
  listMapKey: (text: string): Message => ({
    code: "TSOP1035",
    message: text,
    hint: "a list-map needs @listType map and @listMapKey naming required (or defaulted) scalar fields of the item type",
  }),
  badDefault: (marker: string, text: string): Message => ({
    code: "TSOP1036",
    message: `@${marker} value does not match the field's schema: ${text}`,
    hint: "the API server would reject or silently prune this value; fix the value or the type",
  }),
  oneOf: (text: string): Message => ({
    code: "TSOP1037",
    message: text,
    hint: "@atMostOneOf/@exactlyOneOf/@atLeastOneOf name direct optional ('?') fields of the type they are on",
  }),
  celReason: (reason: string): string =>
    `invalid reason ${reason}, valid values are FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate`,
  bounds: (text: string): Message => ({
    code: "TSOP1039",
    message: text,
    hint: "no value could satisfy both bounds",
  }),
  group: (group: string, why: string): Message => ({
    code: "TSOP1040",
    message: `invalid group '${group}': ${why}`,
    hint: "a CRD group is a lowercase DNS subdomain with at least one dot, e.g. cache.example.com",
  }),
  groupReserved: (group: string): Message =>
    warn({
      code: "TSOP1049",
      message: `group '${group}' is under k8s.io or kubernetes.io`,
      hint: "the API server requires the api-approved.kubernetes.io annotation for these groups; use your own domain",
    }),
  version: (version: string, why: string): Message => ({
    code: "TSOP1041",
    message: `invalid version '${version}': ${why}`,
    hint: "use a Kubernetes version name such as v1, v1beta1 or v2alpha1",
  }),
  versionForm: (version: string): Message =>
    warn({
      code: "TSOP1041",
      message: `version '${version}' is not of the form v1, v1beta1, v2alpha1`,
      hint: "clients order versions by that form; other names sort last",
    }),
  names: (field: string, value: string, why: string): Message => ({
    code: "TSOP1042",
    message: `invalid ${field} '${value}': ${why}`,
  }),
  scope: (scope: string): Message => ({
    code: "TSOP1043",
    message: `invalid scope '${scope}'`,
    hint: 'scope is "Namespaced" (the default) or "Cluster"',
  }),
  duplicateVersion: (kind: string, version: string, other: string): Message => ({
    code: "TSOP1044",
    message: `${kind} version ${version} is declared twice (also at ${other})`,
    hint: "remove one declaration or give it another version",
  }),
  duplicatePlural: (name: string, other: string): Message => ({
    code: "TSOP1045",
    message: `resource ${name} is claimed by two kinds (also at ${other})`,
    hint: "set a different `plural` on one of them",
  }),
  conflict: (kind: string, field: string, a: string, b: string, other: string): Message => ({
    code: "TSOP1046",
    message: `${kind}: versions disagree on ${field} (${a} here, ${b} at ${other})`,
    hint: "CRD-wide settings (names, scope, shortNames, categories, listKind, annotations, labels) must be equal in every version",
  }),
  storage: (text: string): Message => ({
    code: "TSOP1047",
    message: text,
    hint: "mark exactly one served version with @StorageVersion()",
  }),
  skipOnly: (kind: string): Message => ({
    code: "TSOP1048",
    message: `cannot skip a version of ${kind} if there is only a single version`,
    hint: "remove @SkipVersion() or the class's @CustomResource",
  }),
  noStatusProperty: (kind: string): Message =>
    warn({
      code: "TSOP1050",
      message: `${kind} has @Status() but no 'status' property`,
      hint: "extend KubeObject<Spec, Status> or declare a status field",
    }),
  path: (what: string, path: string, why: string): Message => ({
    code: "TSOP1051",
    message: `${what} '${path}' ${why}`,
    hint: "JSON paths start with '.' and name fields of the schema, e.g. .spec.replicas",
  }),
  printerColumnType: (type: string): Message => ({
    code: "TSOP1052",
    message: `printer column type '${type}' is not one of integer, number, string, boolean, date`,
  }),
  verb: (verb: string, suggestion: string | undefined): Message => ({
    code: "TSOP1060",
    message: `unknown RBAC verb '${verb}'${suggestion ? `; did you mean '${suggestion}'?` : ""}`,
    hint: "verbs: get, list, watch, create, update, patch, delete, deletecollection, use, bind, escalate, impersonate, approve, sign, or *",
  }),
  urlsNamespace: (): Message => ({
    code: "TSOP1061",
    message: "@Rbac with both urls and namespace: a namespaced Role cannot hold nonResourceURLs",
    hint: "drop namespace (the rule goes to the ClusterRole) or move the urls to another @Rbac",
  }),
  rbacEmpty: (): Message => ({
    code: "TSOP1062",
    message: "@Rbac needs resources or urls, and at least one verb",
  }),
  deriveUnknown: (what: string): Message =>
    warn({
      code: "TSOP1063",
      message: `--derive-rbac: cannot tell the resource for ${what}`,
      hint: "add an explicit @Rbac for it",
    }),
  bindingConflict: (
    file: string,
    name: string,
    role: string,
    namespace: string,
    roleYaml: string,
  ): Message => ({
    code: "TSOP1064",
    message: `${file} defines RoleBinding ${name} in namespace ${namespace}, the binding ${roleYaml} needs for Role ${role}, but it does not bind Role ${role} to ServiceAccount ${MANAGER_SA}: kustomize would refuse the two`,
    hint: `rename the RoleBinding in ${file} (metadata.name), or make it bind Role ${role} to ServiceAccount ${MANAGER_SA}; tsop then leaves the binding to your file`,
  }),
  /** Not a diagnostic: one line of information on every run. */
  bindingProvided: (file: string, role: string, namespace: string, roleYaml: string): string =>
    `${file} binds Role ${role} (namespace ${namespace}) to the manager's ServiceAccount: ${roleYaml} writes no RoleBinding of its own for it`,
  tooBig: (file: string, kib: number): Message =>
    warn({
      code: "TSOP1070",
      message: `${file} is ${kib} KiB, above 256 KiB: too big for client-side 'kubectl apply' (the last-applied annotation limit)`,
      hint: "apply it with `kubectl apply --server-side`, shorten descriptions with --max-desc-len, or split large embedded types",
    }),
};
