// Spec and status descriptors from the CRD schema: a field whose schema has a `title` (the
// `@title` tag in the TypeScript API) becomes a descriptor with that display name and the
// field's description. Paths follow operator-sdk: JSON names joined by ".", "[0]" for list items.
import { isRecord, str } from "../manifests/index.js";

export interface Descriptor {
  path: string;
  displayName: string;
  description?: string;
}

function walk(schema: unknown, path: string, out: Descriptor[], depth: number): void {
  if (!isRecord(schema) || depth > 20) return;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const name of Object.keys(properties).sort()) {
    const child = properties[name];
    if (!isRecord(child)) continue;
    const childPath = path ? `${path}.${name}` : name;
    const title = str(child.title).trim();
    if (title) {
      const description = str(child.description).trim();
      out.push({ path: childPath, displayName: title, ...(description ? { description } : {}) });
    }
    walk(child, childPath, out, depth + 1);
    if (isRecord(child.items)) walk(child.items, `${childPath}[0]`, out, depth + 1);
  }
}

/** Descriptors under `spec` and `status` of a CRD version's openAPIV3Schema. */
export function schemaDescriptors(schema: unknown): { spec: Descriptor[]; status: Descriptor[] } {
  const root = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  const spec: Descriptor[] = [];
  const status: Descriptor[] = [];
  walk(root.spec, "", spec, 0);
  walk(root.status, "", status, 0);
  const byPath = (a: Descriptor, b: Descriptor) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { spec: spec.sort(byPath), status: status.sort(byPath) };
}
