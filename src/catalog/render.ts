// Template → file-based catalog, as `opm alpha render-template basic|semver` renders it: every
// bundle image the template names is read (bundle-source.ts) and becomes its full olm.bundle blob;
// the basic template's other blobs are kept (with the fields opm's types know); the semver template's
// channels and default channel are generated from the bundles' versions (semver-channels.ts).
import { SemVer } from "semver";
import { InvalidInputError } from "../common/errors.js";
import { isRecord, str } from "../manifests/index.js";
import type { BundleReader } from "./bundle-source.js";
import { addBlob, type Blob, type BundleBlob, type Catalog, type ChannelEntry, emptyCatalog } from "./fbc.js";
import { checkBuildMetadata, semverChannels } from "./semver-channels.js";
import {
  ARCHETYPES,
  type Archetype,
  type BasicTemplate,
  type SemverTemplate,
  type Template,
} from "./template.js";

/** The fields of opm's declcfg types; anything else in a template blob is dropped, as opm drops it. */
function pick(blob: Blob, keys: string[]): Blob {
  return Object.fromEntries(keys.filter((k) => blob[k] !== undefined).map((k) => [k, blob[k]]));
}

function channelEntry(e: unknown): ChannelEntry {
  const r = isRecord(e) ? e : {};
  return {
    name: str(r.name),
    ...(str(r.replaces) ? { replaces: str(r.replaces) } : {}),
    ...(Array.isArray(r.skips) && r.skips.length > 0 ? { skips: r.skips.map(String) } : {}),
    ...(str(r.skipRange) ? { skipRange: str(r.skipRange) } : {}),
  };
}

function normalise(blob: Blob): Blob {
  if (blob.schema === "olm.package")
    return {
      ...pick(blob, ["schema", "name", "icon", "description", "properties"]),
      defaultChannel: str(blob.defaultChannel),
    };
  if (blob.schema === "olm.channel")
    return {
      ...pick(blob, ["schema", "name", "package", "properties"]),
      entries: Array.isArray(blob.entries) ? blob.entries.map(channelEntry) : [],
    };
  return blob;
}

async function renderBasic(template: BasicTemplate, read: BundleReader): Promise<Catalog> {
  const catalog = emptyCatalog();
  for (const entry of template.entries) {
    if (entry.schema === "olm.bundle") addBlob(catalog, (await read(String(entry.image))).blob);
    else addBlob(catalog, normalise(entry));
  }
  return catalog;
}

function packageVersion(bundle: BundleBlob): { packageName: string; version: SemVer } {
  const props = bundle.properties.filter((p) => p.type === "olm.package");
  if (props.length !== 1)
    throw new InvalidInputError(
      `bundle ${bundle.name} (${bundle.image}) has ${props.length} olm.package properties, expected exactly 1`,
    );
  const value = isRecord(props[0]!.value) ? props[0]!.value : {};
  try {
    return { packageName: str(value.packageName), version: new SemVer(str(value.version)) };
  } catch {
    throw new InvalidInputError(
      `bundle ${bundle.name} (${bundle.image}) has the invalid version "${str(value.version)}"`,
      {
        hint: "The semver template orders bundles by their CSV's spec.version, which must be a semantic version.",
      },
    );
  }
}

async function renderSemver(template: SemverTemplate, read: BundleReader): Promise<Catalog> {
  const catalog = emptyCatalog();
  const byImage = new Map<string, BundleBlob>();
  for (const archetype of ARCHETYPES)
    for (const { image } of template[archetype]?.bundles ?? [])
      if (!byImage.has(image)) byImage.set(image, (await read(image)).blob);
  if (byImage.size === 0)
    throw new InvalidInputError("the semver template lists no bundles", {
      hint: "Add one: tsop catalog add <bundle-image> --channel stable",
    });
  let pkg = "";
  const versions = {} as Record<Archetype, Map<string, SemVer>>;
  for (const archetype of ARCHETYPES) {
    const entries = new Map<string, SemVer>();
    for (const { image } of template[archetype]?.bundles ?? []) {
      const bundle = byImage.get(image)!;
      const { packageName, version } = packageVersion(bundle);
      if (pkg && packageName !== pkg)
        throw new InvalidInputError(
          `bundle ${bundle.name} (${image}) belongs to package ${packageName}, not ${pkg}`,
          {
            hint: "A semver template holds the bundles of one package.",
          },
        );
      pkg = packageName;
      if (entries.has(bundle.name))
        throw new InvalidInputError(`${archetype}: bundle ${bundle.name} is listed twice`);
      entries.set(bundle.name, version);
    }
    checkBuildMetadata(entries);
    versions[archetype] = entries;
  }
  const minor = template.generateMinorChannels === true || template.generateMajorChannels !== true;
  const major = template.generateMajorChannels === true;
  const preference = template.defaultChannelTypePreference || (minor ? "minor" : "major");
  if ((preference === "minor" && !minor) || (preference === "major" && !major))
    throw new InvalidInputError(
      `defaultChannelTypePreference "${preference}" needs generate${preference === "minor" ? "Minor" : "Major"}Channels: true`,
    );
  const { channels, defaultChannel } = semverChannels(pkg, versions, { major, minor, preference });
  catalog.packages.push({ schema: "olm.package", name: pkg, defaultChannel });
  catalog.channels.push(...channels);
  catalog.bundles.push(...byImage.values());
  return catalog;
}

export function renderTemplate(template: Template, read: BundleReader): Promise<Catalog> {
  return template.schema === "olm.semver" ? renderSemver(template, read) : renderBasic(template, read);
}
