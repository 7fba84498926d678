// tsop's own settings in PROJECT. PROJECT is the kubebuilder ecosystem's file: operator-sdk and
// kubebuilder load it before most commands (`operator-sdk scorecard`, `bundle validate`) and refuse
// unknown top-level fields and layouts they cannot resolve to a plugin. So tsop keeps its settings
// where kubebuilder keeps plugin settings, under `plugins: {tsop.dev/v1: {…}}`, and writes no
// `layout`. PROJECT files of earlier tsop versions (image, license, owner, bundle and
// `layout: [tsop.dev/v1]` at the top level) are still read, and moved on tsop's next write.
import { type Document, isMap } from "../common/yaml/edit.js";
import { LAYOUT } from "./types.js";

type Raw = Record<string, unknown>;

/** Top-level keys of earlier tsop versions that now live in the plugin section. */
export const LEGACY_KEYS = ["image", "license", "owner", "bundle"] as const;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** tsop's settings: the plugin section's, over any a PROJECT of an earlier version has at the top. */
export function tsopSettings(raw: Raw): Raw {
  const legacy = Object.fromEntries(LEGACY_KEYS.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
  const plugins = isRecord(raw.plugins) ? raw.plugins : {};
  const own = isRecord(plugins[LAYOUT]) ? plugins[LAYOUT] : {};
  return { ...legacy, ...own };
}

/** The layout: as written, else tsop's when the file holds tsop's plugin section. */
export function projectLayout(raw: Raw): string[] {
  if (Array.isArray(raw.layout)) return raw.layout.filter((l): l is string => typeof l === "string");
  if (typeof raw.layout === "string") return [raw.layout];
  return isRecord(raw.plugins) && raw.plugins[LAYOUT] !== undefined ? [LAYOUT] : [];
}

/** The top-level keys of an earlier version's PROJECT that tsop's next write moves. */
export function legacyKeys(raw: Raw): string[] {
  const layout = raw.layout;
  const tsopLayout =
    layout === LAYOUT || (Array.isArray(layout) && layout.length > 0 && layout.every((l) => l === LAYOUT));
  return [...LEGACY_KEYS.filter((k) => raw[k] !== undefined), ...(tsopLayout ? ["layout"] : [])];
}

/**
 * Moves an earlier version's top-level settings into the plugin section and drops a layout that
 * names only tsop, in place. Returns the keys it moved (empty when the file was current).
 */
export function migrateSettings(doc: Document): string[] {
  const js = doc.toJS() as Raw;
  const moved = legacyKeys(js);
  if (moved.length === 0) return [];
  const present = LEGACY_KEYS.filter((k) => js[k] !== undefined);
  const tsopLayout = moved.includes("layout");
  const section = doc.getIn(["plugins", LAYOUT]);
  const values: Raw = { ...Object.fromEntries(present.map((k) => [k, js[k]])) };
  if (isMap(section)) Object.assign(values, section.toJSON() as Raw);
  for (const key of present) doc.delete(key);
  if (tsopLayout) doc.delete("layout");
  if (!isMap(doc.get("plugins"))) doc.set("plugins", doc.createNode({}));
  doc.setIn(["plugins", LAYOUT], doc.createNode(values));
  return moved;
}
