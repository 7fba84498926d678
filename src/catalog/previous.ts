// CAT-15: users of the previous catalog. A bundle that was in a channel of the catalog users have
// today (the previous render, e.g. from git) and is gone from that channel now still runs on
// clusters; unless some entry of the new channel replaces it, skips it or covers its version with a
// skipRange, OLM offers those users no upgrade ever again.
import type { CatalogFinding } from "./checks.js";
import type { PackageGraph } from "./graph.js";
import { parseRange } from "./graph.js";

export function checkAgainstPrevious(
  previous: readonly PackageGraph[],
  current: readonly PackageGraph[],
): CatalogFinding[] {
  const out: CatalogFinding[] = [];
  for (const before of previous) {
    const now = current.find((p) => p.name === before.name);
    if (!now) {
      out.push({
        id: "CAT-15",
        level: "warning",
        package: before.name,
        entries: [],
        message: `package ${before.name} is gone from the catalog; its users keep what they run and get no upgrade`,
        fix: "keep the package (deprecate it with an olm.deprecations blob instead), unless dropping it is meant",
      });
      continue;
    }
    for (const channel of before.channels) {
      const name = channel.blob.name;
      const next = now.channels.find((c) => c.blob.name === name);
      const kept = new Set(next?.entries.map((e) => e.name) ?? []);
      for (const old of channel.entries.filter((e) => !kept.has(e.name))) {
        const version = before.bundles.get(old.name)?.version;
        const upgraded = (next?.entries ?? []).some((e) => {
          const range = e.skipRange ? parseRange(e.skipRange) : undefined;
          return (
            e.replaces === old.name ||
            (e.skips ?? []).includes(old.name) ||
            (range && version && range.test(version))
          );
        });
        if (upgraded) continue;
        out.push({
          id: "CAT-15",
          level: "error",
          package: before.name,
          channel: name,
          entries: [old.name],
          message: next
            ? `${old.name} (${version?.version ?? "?"}) was in channel ${name} and is gone, and no entry replaces, skips or covers it: its users are stranded`
            : `channel ${name} is gone, and with it the upgrade of users on ${old.name} (${version?.version ?? "?"})`,
          fix: next
            ? `list ${old.name} in the channel head's skips, or widen its skipRange to cover ${version?.version ?? "that version"}`
            : `keep channel ${name} with a head that skips ${old.name}, or deprecate the channel instead of removing it`,
        });
      }
    }
  }
  return out;
}
