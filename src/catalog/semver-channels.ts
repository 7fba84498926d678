// opm's semver template (alpha/template/semver), channel generation step: every bundle goes into a
// `<archetype>-v<major>.<minor>` channel (and/or `<archetype>-v<major>`), entries sorted by version;
// within one minor stream the last entry skips the ones before it, and the first entry of the next
// minor replaces (and skips) the previous stream's last one. The default channel is the "most stable"
// channel: highest archetype, then highest version, then the preferred stream type. Ported rule for
// rule so `tsop catalog render` and `opm alpha render-template semver` agree.
import { SemVer } from "semver";
import { InvalidInputError } from "../common/errors.js";
import type { ChannelBlob, ChannelEntry } from "./fbc.js";
import { ARCHETYPES, type Archetype } from "./template.js";

type Stream = "" | "minor" | "major";
const ARCHETYPE_RANK: Record<Archetype, number> = { candidate: 0, fast: 1, stable: 2 };
const STREAM_RANK: Record<Stream, number> = { minor: 2, major: 1, "": 0 };

export interface SemverOptions {
  major: boolean;
  minor: boolean;
  preference: Stream;
}

interface HighWater {
  archetype: Archetype;
  kind: Stream;
  version: SemVer;
  name: string;
}

function higher(h: HighWater, than: HighWater, pref: Stream): boolean {
  if (ARCHETYPE_RANK[h.archetype] !== ARCHETYPE_RANK[than.archetype])
    return ARCHETYPE_RANK[h.archetype] > ARCHETYPE_RANK[than.archetype];
  if (h.version.compare(than.version) !== 0) return h.version.compare(than.version) > 0;
  if (h.kind !== than.kind) {
    if (h.kind === pref) return true;
    if (than.kind === pref) return false;
    return STREAM_RANK[h.kind] > STREAM_RANK[than.kind];
  }
  return false;
}

/** Versions that differ only by build metadata cannot be ordered (opm refuses them too). */
export function checkBuildMetadata(versions: Map<string, SemVer>): void {
  const seen = new Map<string, string>();
  for (const [name, v] of versions) {
    const stripped = `${v.major}.${v.minor}.${v.patch}${v.prerelease.length ? `-${v.prerelease.join(".")}` : ""}`;
    const other = seen.get(stripped);
    if (other)
      throw new InvalidInputError(
        `bundles ${other} and ${name} have versions that differ only by build metadata (${stripped}); they cannot be ordered`,
        { hint: "Give one of them another version." },
      );
    seen.set(stripped, name);
  }
}

const sameMinor = (a: SemVer, b: SemVer) => a.major === b.major && a.minor === b.minor;

/** The inchworm of opm's linkChannels over one channel's entries (sorted by version in place). */
function link(entries: ChannelEntry[], version: (name: string) => SemVer): void {
  entries.sort((a, b) => version(a.name).compare(version(b.name)));
  let cur = 0;
  let probe = 0;
  let zmax = "";
  const count = entries.length;
  while (cur < count) {
    while (probe < count && sameMinor(version(entries[probe]!.name), version(entries[cur]!.name))) probe++;
    const last = probe - 1;
    if (cur !== probe) {
      if (zmax !== "") {
        const e = entries[last]!;
        e.skips = [...(e.skips ?? []), zmax];
        e.replaces = zmax;
      }
      zmax = entries[last]!.name;
    }
    while (cur < last) {
      const e = entries[last]!;
      e.skips = [...(e.skips ?? []), entries[cur]!.name];
      cur++;
    }
    cur++;
    probe = cur + 1;
  }
  if (count > 1) {
    const penultimate = entries[count - 2]!;
    const ultimate = entries[count - 1]!;
    if (version(ultimate.name).minor !== version(penultimate.name).minor)
      ultimate.replaces = penultimate.name;
  }
}

/** Channels (unsorted) and the default channel for the bundles of each archetype. */
export function semverChannels(
  pkg: string,
  byArchetype: Record<Archetype, Map<string, SemVer>>,
  options: SemverOptions,
): { channels: ChannelBlob[]; defaultChannel: string } {
  let hwc: HighWater = { archetype: "candidate", kind: "", version: new SemVer("0.0.0"), name: "" };
  const channels = new Map<string, ChannelBlob>();
  const versionOf = new Map<string, SemVer>();
  for (const archetype of ARCHETYPES)
    for (const [name, v] of byArchetype[archetype]) if (!versionOf.has(name)) versionOf.set(name, v);
  for (const archetype of ARCHETYPES) {
    const bundles = byArchetype[archetype];
    const names = [...bundles.keys()].sort((a, b) => bundles.get(a)!.compare(bundles.get(b)!));
    for (const name of names) {
      const v = bundles.get(name)!;
      const keys: Array<[Stream, string]> = [];
      if (options.major) keys.push(["major", `${archetype}-v${v.major}`]);
      if (options.minor) keys.push(["minor", `${archetype}-v${v.major}.${v.minor}`]);
      for (const [kind, channelName] of keys) {
        let channel = channels.get(channelName);
        if (!channel) {
          channel = { schema: "olm.channel", name: channelName, package: pkg, entries: [] };
          channels.set(channelName, channel);
          const candidate: HighWater = { archetype, kind, version: v, name: channelName };
          if (higher(candidate, hwc, options.preference)) hwc = candidate;
        }
        channel.entries.push({ name });
      }
    }
  }
  for (const channel of channels.values()) link(channel.entries, (name) => versionOf.get(name)!);
  return { channels: [...channels.values()], defaultChannel: hwc.name };
}
