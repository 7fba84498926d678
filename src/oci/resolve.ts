// Digest resolution: every distinct reference is asked for once (HEAD on its manifest, by the
// fully qualified name), with bounded concurrency, and every outcome is kept so callers can report
// all failures together.
import { RegistryClient, type RegistryClientOptions } from "./client.js";
import { mapSettled } from "./limit.js";
import { canonicalReference, type ImageReference, parseReference } from "./reference.js";

export interface ResolveOptions extends RegistryClientOptions {
  /** References resolved at the same time (default 8). */
  concurrency?: number;
  /** An existing client to reuse (its options win). */
  client?: RegistryClient;
}

export type Resolution =
  | { reference: string; canonical: string; digest: string }
  | { reference: string; canonical: string; error: Error };

/** Resolves references to manifest digests; the result has one entry per distinct canonical reference. */
export async function resolveDigests(
  references: readonly string[],
  options: ResolveOptions = {},
): Promise<Resolution[]> {
  const distinct = new Map<string, ImageReference>();
  const invalid: Resolution[] = [];
  for (const reference of references) {
    let parsed: ImageReference;
    try {
      parsed = parseReference(reference);
    } catch (error) {
      invalid.push({ reference, canonical: reference, error: error as Error });
      continue;
    }
    const canonical = canonicalReference(parsed);
    if (!distinct.has(canonical)) distinct.set(canonical, parsed);
  }
  const client = options.client ?? new RegistryClient(options);
  try {
    const entries = [...distinct.entries()];
    const byRegistry = new Map<string, string[]>();
    for (const [, ref] of entries) {
      // Tokens for where the pull goes first (a mirror, when one is set for the image).
      const at = client.firstPullLocation(ref.registry, ref.repository);
      byRegistry.set(at.registry, [...(byRegistry.get(at.registry) ?? []), at.repository]);
    }
    await Promise.all([...byRegistry].map(([registry, repos]) => client.prefetchPullTokens(registry, repos)));
    const settled = await mapSettled(entries, options.concurrency ?? 8, ([, ref]) =>
      client.resolveDigest(ref),
    );
    return [
      ...invalid,
      ...entries.map(([canonical, ref], i): Resolution => {
        const outcome = settled[i]!;
        return outcome.status === "fulfilled"
          ? { reference: ref.original, canonical, digest: outcome.value.digest }
          : { reference: ref.original, canonical, error: outcome.reason as Error };
      }),
    ];
  } finally {
    if (!options.client) client.close();
  }
}
