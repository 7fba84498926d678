// Who may scrape /metrics, decided by the API server as controller-runtime's
// filters.WithAuthenticationAndAuthorization does: the bearer token goes to a TokenReview
// (authentication.k8s.io/v1), the user it names to a SubjectAccessReview (authorization.k8s.io/v1)
// for the request's path and lowercased method. The manager's service account needs the scaffold's
// metrics-auth-role (create tokenreviews and subjectaccessreviews); the scraper needs
// metrics-reader (nonResourceURLs /metrics, get).
// Answers are cached as the delegating authenticator and authorizer cache them (token reviews 1 min
// either way, access reviews 5 min when allowed, 30 s when denied; failed calls are not cached), so
// a Prometheus scrape every 15 s costs no API call most of the time.
import { createHash } from "node:crypto";
import type { Logger } from "../log/logger.js";
import type { RestClient } from "../connect/rest.js";

export interface MetricsAuthOptions {
  /** How long a TokenReview answer (authenticated or not) is reused (ms). Default 60 s. */
  tokenTtlMs?: number;
  /** How long an allowing SubjectAccessReview is reused (ms). Default 5 min. */
  allowTtlMs?: number;
  /** How long a denying SubjectAccessReview is reused (ms). Default 30 s. */
  denyTtlMs?: number;
  /** Clock (ms), for the cache. Default Date.now. */
  now?: () => number;
}

/** The user a TokenReview names (status.user). */
export interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type MetricsVerdict =
  { allowed: true; user: string } | { allowed: false; status: 401 | 403 | 500; message: string };

/** Entries kept per cache: enough for every scraper, bounded against a flood of made-up tokens. */
const MAX_ENTRIES = 4096;
/** controller-runtime's TokenAccessReviewTimeout. */
const REVIEW_TIMEOUT_MS = 10_000;

/** A map whose entries expire; the oldest entry goes first when it is full. */
class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  constructor(private readonly now: () => number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expires: this.now() + ttlMs });
  }
}

/** The token of an "Authorization: Bearer <token>" header (undefined when there is none). */
function bearerToken(authorization: string | undefined): string | undefined {
  const parts = (authorization ?? "").trim().split(" ");
  if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer") return undefined;
  return parts[1] || undefined;
}

export class MetricsAuthorizer {
  private readonly tokens: ExpiringCache<ReviewedUser | null>;
  private readonly access: ExpiringCache<boolean>;
  /** Lookups in flight, so that concurrent scrapes with one token make one review. */
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly ttl: { token: number; allow: number; deny: number };

  constructor(
    private readonly rest: RestClient,
    private readonly logger: Logger,
    options: MetricsAuthOptions = {},
  ) {
    const now = options.now ?? Date.now;
    this.tokens = new ExpiringCache(now);
    this.access = new ExpiringCache(now);
    this.ttl = {
      token: options.tokenTtlMs ?? 60_000,
      allow: options.allowTtlMs ?? 5 * 60_000,
      deny: options.denyTtlMs ?? 30_000,
    };
  }

  /** Whether a request with this Authorization header may `method` the `path`. */
  async check(authorization: string | undefined, method: string, path: string): Promise<MetricsVerdict> {
    const token = bearerToken(authorization);
    if (!token) return { allowed: false, status: 401, message: "Unauthorized" };
    let user: ReviewedUser | null;
    try {
      user = await this.authenticate(token);
    } catch (error) {
      this.logger.error("Authentication failed", error);
      return { allowed: false, status: 500, message: "Authentication failed" };
    }
    if (!user) {
      this.logger.debug("Authentication failed: the token is not valid", { path });
      return { allowed: false, status: 401, message: "Unauthorized" };
    }
    const verb = method.toLowerCase();
    let allowed: boolean;
    try {
      allowed = await this.authorize(user, path, verb);
    } catch (error) {
      const message = `Authorization for user ${user.username} failed`;
      this.logger.error(message, error);
      return { allowed: false, status: 500, message };
    }
    if (!allowed) {
      const message = `Authorization denied for user ${user.username}`;
      this.logger.debug(message, { path, verb });
      return { allowed: false, status: 403, message };
    }
    return { allowed: true, user: user.username };
  }

  /** The user the token belongs to, or null when the API server does not accept it. */
  private authenticate(token: string): Promise<ReviewedUser | null> {
    // Keyed by a digest: the cache never holds a token.
    const key = createHash("sha256").update(token).digest("hex");
    return this.cached(this.tokens, `token:${key}`, async () => {
      const review = await this.rest.request<{
        status?: { authenticated?: boolean; user?: ReviewedUser };
      }>("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
        timeoutMs: REVIEW_TIMEOUT_MS,
      });
      const status = review.status ?? {};
      const user = status.authenticated && status.user?.username ? withAuthenticatedGroup(status.user) : null;
      return { value: user, ttl: this.ttl.token };
    });
  }

  private authorize(user: ReviewedUser, path: string, verb: string): Promise<boolean> {
    const spec = {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      groups: user.groups ?? [],
      ...(user.extra ? { extra: user.extra } : {}),
      nonResourceAttributes: { path, verb },
    };
    return this.cached(this.access, `sar:${JSON.stringify(spec)}`, async () => {
      const review = await this.rest.request<{ status?: { allowed?: boolean; denied?: boolean } }>(
        "POST",
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        {
          body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec },
          timeoutMs: REVIEW_TIMEOUT_MS,
        },
      );
      const allowed = review.status?.allowed === true && review.status.denied !== true;
      return { value: allowed, ttl: allowed ? this.ttl.allow : this.ttl.deny };
    });
  }

  /** The cached answer, or one lookup shared by every caller asking meanwhile; failures are not kept. */
  private cached<V>(
    cache: ExpiringCache<V>,
    key: string,
    lookup: () => Promise<{ value: V; ttl: number }>,
  ): Promise<V> {
    const hit = cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const inFlight = this.pending.get(key) as Promise<V> | undefined;
    if (inFlight) return inFlight;
    const fetched = lookup()
      .then(({ value, ttl }) => {
        cache.set(key, value, ttl);
        return value;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, fetched);
    return fetched;
  }
}

/** Every authenticated user is in system:authenticated (the apiserver's AuthenticatedGroupAdder). */
function withAuthenticatedGroup(user: ReviewedUser): ReviewedUser {
  const groups = user.groups ?? [];
  return groups.includes("system:authenticated")
    ? user
    : { ...user, groups: [...groups, "system:authenticated"] };
}
