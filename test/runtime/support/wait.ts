// Event-driven waiting for tests: poll a condition until it holds, failing with a description.
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  timeoutMs = 15_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false && value !== null) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ""}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A kubeconfig for a plain-http test server with a bearer token. */
export function kubeconfigFor(url: string, token = "test-token"): string {
  return `apiVersion: v1
kind: Config
clusters: [{ name: test, cluster: { server: "${url}" } }]
users: [{ name: test, user: { token: ${token} } }]
contexts: [{ name: test, context: { cluster: test, user: test, namespace: default } }]
current-context: test
`;
}
