// The OpenAPI v3 structural schema model tsop emits (apiextensions.k8s.io/v1 JSONSchemaProps),
// plus the internal `$ref` used between the schema and flatten stages.

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  example?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: Schema[];
  allOf?: Schema[];
  externalDocs?: { url: string; description?: string };
  "x-kubernetes-validations"?: ValidationRule[];
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: string;
}

export const VALIDATIONS = "x-kubernetes-validations";
