// Naming rules shared by init, create api and every reader of PROJECT. Each check returns a
// sentence describing the problem (for one list of problems), or undefined when the value is fine.

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KUBE_VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const PASCAL = /^[A-Z][A-Za-z0-9]*$/;

/** DNS-1123 label: lowercase alphanumerics and '-', at most 63 characters. */
export function checkDnsLabel(what: string, value: string): string | undefined {
  if (value.length > 63) return `${what} "${value}" is longer than 63 characters`;
  if (!LABEL.test(value)) {
    return `${what} "${value}" is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit)`;
  }
  return undefined;
}

/** DNS-1123 subdomain: dot-separated labels, at most 253 characters. */
export function checkDnsSubdomain(what: string, value: string): string | undefined {
  if (value.length > 253) return `${what} "${value}" is longer than 253 characters`;
  if (!SUBDOMAIN.test(value) || value.split(".").some((label) => label.length > 63)) {
    return `${what} "${value}" is not a DNS-1123 subdomain (lowercase dot-separated labels such as example.com)`;
  }
  return undefined;
}

export function checkDomain(domain: string): string | undefined {
  return checkDnsSubdomain("--domain", domain);
}

export function checkProjectName(name: string): string | undefined {
  return checkDnsLabel("--project-name", name);
}

export function checkGroup(group: string, domain: string): string | undefined {
  const own = checkDnsSubdomain("--group", group);
  if (own) return own;
  return checkDnsSubdomain("the API group", fullGroup(group, domain));
}

export function checkVersion(version: string): string | undefined {
  if (!KUBE_VERSION.test(version)) {
    return `--version "${version}" is not a Kubernetes API version (v1, v2beta1, v1alpha2, ...)`;
  }
  return undefined;
}

export function checkKind(kind: string): string | undefined {
  if (kind.length > 63) return `--kind "${kind}" is longer than 63 characters`;
  if (!PASCAL.test(kind)) {
    return `--kind "${kind}" is not PascalCase (a capital letter, then letters and digits, e.g. Memcached)`;
  }
  return undefined;
}

export function checkPlural(plural: string): string | undefined {
  return checkDnsLabel("--plural", plural);
}

/** `cache` + `example.com` → `cache.example.com`. */
export function fullGroup(group: string, domain: string): string {
  return domain ? `${group}.${domain}` : group;
}
