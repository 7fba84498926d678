// `tsop catalog add <bundle-image>`: puts a released bundle into the template, editing the YAML in
// place (comments and order kept). Basic template: the olm.bundle {image} entry, the package if new,
// and an entry in each channel (the bundle's channels annotation, or --channel) that replaces the
// channel's current head unless the CSV names its own replaces; skips and skipRange come from the CSV.
// Semver template: the image in the candidate/fast/stable list, kept in version order; channels and
// edges are generated from versions when the template is rendered.
import { dirname } from "node:path";
import { type Document, isCollection, parseEditableDocument, visit } from "../common/yaml/edit.js";
import { SemVer } from "semver";
import { InvalidInputError, UsageError } from "../common/errors.js";
import { mkdir, readFile, writeFileAtomic } from "../common/fs.js";
import { isRecord, str } from "../manifests/index.js";
import type { BundleInfo, BundleReader } from "./bundle-source.js";
import type { ChannelEntry } from "./fbc.js";
import {
  ARCHETYPES,
  type Archetype,
  BASIC_SCHEMA,
  type BasicTemplate,
  parseTemplate,
  SEMVER_SCHEMA,
  type SemverTemplate,
} from "./template.js";

export interface AddOptions {
  /** Channels (basic) or the archetype (semver); default: the bundle's channels annotation. */
  channels?: string[];
  /** Create a semver template when there is none (default: basic). */
  semver?: boolean;
}

export interface AddResult {
  template: string;
  bundle: string;
  version: string;
  /** Channels (basic) or the archetype (semver) the bundle went into; empty when it was there already. */
  channels: string[];
  created: boolean;
}

const NEW_BASIC = `schema: ${BASIC_SCHEMA}\nentries: []\n`;
const NEW_SEMVER = `schema: ${SEMVER_SCHEMA}\ngenerateMajorChannels: false\ngenerateMinorChannels: true\n`;

/** The single head of a basic template channel, as opm finds it. */
function headOf(entries: ChannelEntry[]): string | undefined {
  const incoming = new Set(entries.flatMap((e) => [e.replaces ?? "", ...(e.skips ?? [])]));
  const heads = entries.map((e) => e.name).filter((n) => !incoming.has(n));
  return heads.length === 1 ? heads[0] : undefined;
}

function addBasic(
  doc: Document,
  template: BasicTemplate,
  info: BundleInfo,
  image: string,
  channels: string[],
): string[] {
  const pkg = info.blob.package;
  const entries = template.entries;
  const added: string[] = [];
  if (!entries.some((e) => e.schema === "olm.package" && e.name === pkg))
    doc.addIn(
      ["entries"],
      doc.createNode({
        schema: "olm.package",
        name: pkg,
        defaultChannel: info.defaultChannel ?? channels[0],
      }),
    );
  for (const channel of channels) {
    let index = entries.findIndex(
      (e) => e.schema === "olm.channel" && e.package === pkg && e.name === channel,
    );
    const existing = index < 0 ? [] : ((entries[index]!.entries as ChannelEntry[] | undefined) ?? []);
    if (existing.some((e) => isRecord(e) && e.name === info.blob.name)) continue;
    if (index < 0) {
      doc.addIn(
        ["entries"],
        doc.createNode({ schema: "olm.channel", package: pkg, name: channel, entries: [] }),
      );
      index = (doc.get("entries") as { items: unknown[] }).items.length - 1;
    }
    const replaces = info.replaces ?? headOf(existing);
    const entry = {
      name: info.blob.name,
      ...(replaces ? { replaces } : {}),
      ...(info.skips.length > 0 ? { skips: info.skips } : {}),
      ...(info.skipRange ? { skipRange: info.skipRange } : {}),
    };
    doc.addIn(["entries", index, "entries"], doc.createNode(entry));
    added.push(channel);
  }
  if (!entries.some((e) => e.schema === "olm.bundle" && e.image === image))
    doc.addIn(["entries"], doc.createNode({ schema: "olm.bundle", image }));
  return added;
}

async function addSemver(
  doc: Document,
  template: SemverTemplate,
  info: BundleInfo,
  image: string,
  channels: string[],
  read: BundleReader,
): Promise<string[]> {
  if (channels.length !== 1 || !ARCHETYPES.includes(channels[0] as Archetype))
    throw new UsageError(
      `a semver template places a bundle in one of ${ARCHETYPES.join(", ")}; ${channels.length ? `got ${channels.join(", ")}` : "the bundle's channels annotation names none"}`,
      { hint: "Pass --channel candidate|fast|stable." },
    );
  const archetype = channels[0] as Archetype;
  const images = (template[archetype]?.bundles ?? []).map((b) => b.image);
  if (images.includes(image)) return [];
  const all = [...images, image];
  const versions = new Map<string, SemVer>();
  for (const i of all) {
    const v = i === image ? info.version : (await read(i)).version;
    try {
      versions.set(i, new SemVer(v));
    } catch {
      throw new InvalidInputError(
        `${i} has the version "${v}", not a semantic version; the semver template orders by it`,
      );
    }
  }
  all.sort((a, b) => versions.get(a)!.compare(versions.get(b)!) || (a < b ? -1 : 1));
  doc.setIn([archetype, "bundles"], doc.createNode(all.map((i) => ({ image: i }))));
  return [archetype];
}

/** The empty flow-style collections (`[]`, `{}`) of the document. */
function emptyFlowCollections(doc: Document): Array<{ flow?: boolean; items: unknown[] }> {
  const found: Array<{ flow?: boolean; items: unknown[] }> = [];
  visit(doc, (_key, node) => {
    if (isCollection(node) && node.flow && node.items.length === 0) found.push(node);
  });
  return found;
}

export async function addToTemplate(
  file: string,
  image: string,
  read: BundleReader,
  options: AddOptions = {},
): Promise<AddResult> {
  const current = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  const text = current ?? (options.semver ? NEW_SEMVER : NEW_BASIC);
  const template = parseTemplate(text, file);
  const info = await read(image);
  const channels = options.channels?.length ? options.channels : info.channels;
  // The template keeps the yaml package's default quoting: what `catalog add` has always written.
  const doc = parseEditableDocument(text, { quoteForYaml11: false });
  const empty = emptyFlowCollections(doc);
  let added: string[];
  if (template.schema === BASIC_SCHEMA) {
    if (channels.length === 0)
      throw new UsageError(`${image} names no channel (its channels annotation is empty)`, {
        hint: "Pass --channel <name>.",
      });
    added = addBasic(doc, template, info, image, channels);
  } else added = await addSemver(doc, template, info, image, channels, read);
  // A new template's `entries: []` is a flow sequence, and yaml keeps what is added to it on that
  // one line: filled, it is written in block style like the rest.
  for (const node of empty) if (node.items.length > 0) node.flow = false;
  const out = doc.toString({ lineWidth: 0 });
  parseTemplate(out, file);
  await mkdir(dirname(file), { recursive: true });
  if (out !== current) await writeFileAtomic(file, out);
  return {
    template: file,
    bundle: info.blob.name,
    version: str(info.version),
    channels: added,
    created: current === undefined,
  };
}
