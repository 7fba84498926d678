// What a fault applies to: a request's method, path, watch-ness and user, and the rule that
// matches them (shared by the fault rules and the watch gates).

export interface FaultMatch {
  /** HTTP method (GET, POST, PUT, PATCH, DELETE); any when omitted. */
  method?: string;
  /** Exact path, a "prefix*" string, or a RegExp tested against the path (query string excluded). */
  path?: string | RegExp;
  /** Only watch requests (true) or only non-watch requests (false); both when omitted. */
  watch?: boolean;
  /**
   * Only requests of this user: the client certificate's name (real control plane) or the
   * token's user (in-memory server); "(bearer token)" for tokens the fault proxy passes through.
   */
  user?: string;
}

export interface MatchedRequest {
  method: string;
  path: string;
  watch: boolean;
  user?: string;
}

export function matches(m: FaultMatch, r: MatchedRequest): boolean {
  if (m.method && m.method.toUpperCase() !== r.method) return false;
  if (m.watch !== undefined && m.watch !== r.watch) return false;
  if (m.user !== undefined && m.user !== r.user) return false;
  if (m.path === undefined) return true;
  if (m.path instanceof RegExp) return m.path.test(r.path);
  if (m.path.endsWith("*")) return r.path.startsWith(m.path.slice(0, -1));
  return r.path === m.path;
}
