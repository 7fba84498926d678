// Class-property decorator spellings of tsop's JSDoc schema tags, for API types written as classes:
// `@Minimum(1) replicas?: Int32;` means the same as `/** @minimum 1 */`. `tsop generate` reads them
// statically; at run time they do nothing. Each works as a TypeScript 5 standard field decorator and
// as a legacy experimentalDecorators property decorator.

type FieldDecorator = (target: unknown, context?: unknown) => void;
const noop: FieldDecorator = () => {};

export interface ValidationRuleOptions {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** `@minimum` */
export const Minimum = (_value: number): FieldDecorator => noop;
/** `@maximum` */
export const Maximum = (_value: number): FieldDecorator => noop;
/** `@exclusiveMinimum` */
export const ExclusiveMinimum = (_value = true): FieldDecorator => noop;
/** `@exclusiveMaximum` */
export const ExclusiveMaximum = (_value = true): FieldDecorator => noop;
/** `@multipleOf` */
export const MultipleOf = (_value: number): FieldDecorator => noop;
/** `@minLength` */
export const MinLength = (_value: number): FieldDecorator => noop;
/** `@maxLength` */
export const MaxLength = (_value: number): FieldDecorator => noop;
/** `@pattern` */
export const Pattern = (_regex: string): FieldDecorator => noop;
/** `@minItems` */
export const MinItems = (_value: number): FieldDecorator => noop;
/** `@maxItems` */
export const MaxItems = (_value: number): FieldDecorator => noop;
/** `@uniqueItems` */
export const UniqueItems = (_value = true): FieldDecorator => noop;
/** `@minProperties` */
export const MinProperties = (_value: number): FieldDecorator => noop;
/** `@maxProperties` */
export const MaxProperties = (_value: number): FieldDecorator => noop;
/** `@format` */
export const StringFormat = (_format: string): FieldDecorator => noop;
/** `@enumValues` */
export const EnumValues = (..._values: Array<string | number | boolean>): FieldDecorator => noop;
/** `@schemaType` */
export const SchemaType = (
  _type: "string" | "integer" | "number" | "boolean" | "object" | "array",
): FieldDecorator => noop;
/** `@schemaless` */
export const Schemaless = (): FieldDecorator => noop;
/** `@nullable` */
export const Nullable = (): FieldDecorator => noop;
/** `@default` (any JSON value) */
export const Default = (_value: unknown): FieldDecorator => noop;
/** `@example` (any JSON value) */
export const Example = (_value: unknown): FieldDecorator => noop;
/** `@title` */
export const Title = (_title: string): FieldDecorator => noop;
/** `@externalDocs` ("<url> [description]") */
export const ExternalDocs = (_urlAndDescription: string): FieldDecorator => noop;
/** `@validation` (a CEL rule) */
export const Validate = (_rule: ValidationRuleOptions): FieldDecorator => noop;
/** `@immutable` */
export const Immutable = (): FieldDecorator => noop;
/** `@listType` */
export const ListType = (_type: "atomic" | "set" | "map"): FieldDecorator => noop;
/** `@listMapKey` */
export const ListMapKey = (_key: string): FieldDecorator => noop;
/** `@mapType` */
export const MapType = (_type: "atomic" | "granular"): FieldDecorator => noop;
/** `@structType` */
export const StructType = (_type: "atomic" | "granular"): FieldDecorator => noop;
/** `@preserveUnknownFields` */
export const PreserveUnknownFields = (): FieldDecorator => noop;
/** `@embeddedResource` */
export const EmbeddedObject = (): FieldDecorator => noop;
/** `@optional` */
export const OptionalField = (): FieldDecorator => noop;
/** `@required` */
export const RequiredField = (): FieldDecorator => noop;
