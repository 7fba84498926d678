// resourceVersions are opaque to clients by API convention, but the API server's etcd storage hands
// out increasing integers and, since Kubernetes 1.35 (KEP-5504), guarantees they compare as such.
// Only such pairs are compared; anything else counts as "not known to be newer".

const DECIMAL = /^[0-9]{1,30}$/;

/** a > b, when both are decimal resourceVersions; false when either is not. */
export function isNewerVersion(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || !DECIMAL.test(a) || !DECIMAL.test(b)) return false;
  return a.length !== b.length ? a.length > b.length : a > b;
}

/** a >= b under the same rule. */
export function isAtLeastVersion(a: string | undefined, b: string | undefined): boolean {
  return a === b ? a !== undefined : isNewerVersion(a, b);
}

export function comparableVersion(rv: string | undefined): boolean {
  return rv !== undefined && DECIMAL.test(rv);
}
