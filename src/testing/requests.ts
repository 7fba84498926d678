// The request log both control planes keep: the in-memory server records what it served, the real
// control plane's fault proxy what it forwarded (TestCluster.requests, RealTestCluster.requests).

/** One served request. */
export interface RequestRecord {
  method: string;
  /** Path with query string. */
  path: string;
  status: number;
  user: string;
}
