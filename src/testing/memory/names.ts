// Object name rules (DNS subdomain / label) and generateName suffixes, with the apiserver's messages.
import { type FieldError, invalidValue } from "./status.js";

const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

export type NameRule = "subdomain" | "label" | "dns1035" | "path";

/** Which rule the apiserver applies to a resource's metadata.name. */
export function nameRuleFor(group: string, resource: string): NameRule {
  if (group === "" && resource === "namespaces") return "label";
  if (group === "" && resource === "services") return "dns1035";
  if (group.startsWith("rbac.authorization.k8s.io")) return "path";
  return "subdomain";
}

export function validateName(name: string, rule: NameRule, field = "metadata.name"): FieldError[] {
  if (rule === "path") {
    if (name === "." || name === ".." || name.includes("/") || name.includes("%")) {
      return [invalidValue(field, name, `may not contain '/' or '%' and may not be '.' or '..'`)];
    }
    return [];
  }
  const max = rule === "subdomain" ? 253 : 63;
  const errors: FieldError[] = [];
  if (name.length > max) errors.push(invalidValue(field, name, `must be no more than ${max} characters`));
  const [re, msg] =
    rule === "subdomain"
      ? [subdomain, subdomainMsg]
      : rule === "label"
        ? [label, labelMsg]
        : [dns1035, dns1035Msg];
  if (!re.test(name)) errors.push(invalidValue(field, name, msg));
  return errors;
}

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

export function randomSuffix(length = 5): string {
  let s = "";
  for (let i = 0; i < length; i++) s += suffixAlphabet[Math.floor(Math.random() * suffixAlphabet.length)];
  return s;
}

/** Label keys/values as metav1 validation checks them. */
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const qualifiedName = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

export function validateLabels(labels: unknown): FieldError[] {
  if (labels === undefined || labels === null) return [];
  if (typeof labels !== "object" || Array.isArray(labels)) {
    return [invalidValue("metadata.labels", labels, "must be a map of string to string")];
  }
  const errors: FieldError[] = [];
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    const slash = k.lastIndexOf("/");
    const prefix = slash >= 0 ? k.slice(0, slash) : "";
    const name = slash >= 0 ? k.slice(slash + 1) : k;
    if ((prefix !== "" && !subdomain.test(prefix)) || !qualifiedName.test(name) || name.length > 63) {
      errors.push(
        invalidValue(
          "metadata.labels",
          k,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
      );
    }
    if (typeof v !== "string" || !labelValue.test(v) || v.length > 63) {
      errors.push(
        invalidValue(
          "metadata.labels",
          v,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
      );
    }
  }
  return errors;
}
