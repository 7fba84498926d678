// spec.relatedImages rebuilt from the CSV's (pinned) image sites, deterministically:
//   - one entry per image (same repository and digest = same image, however it was spelled);
//   - its name comes from, in this order: an existing relatedImages entry (kept as the user wrote
//     it), a RELATED_IMAGE_<NAME> variable (<name> lower-cased, '_' -> '-'), the container name,
//     else the repository's last path component;
//   - when two images want the same name, the ones not listed by the user take a qualified name
//     (<deployment>-<container>, <container>-<env name>), then a short hash of the image;
//   - sorted by name, then image.
import { createHash } from "node:crypto";
import type { ImageSite, SiteRole } from "./image-sites.js";
import { canonicalReference, fullName, parseReference } from "./reference.js";

export interface RelatedImage {
  name: string;
  image: string;
}

const PRIORITY: Record<SiteRole, number> = {
  relatedImage: 0,
  env: 1,
  container: 2,
  initContainer: 2,
  annotation: 3,
};

function identity(image: string): string {
  try {
    const ref = parseReference(image);
    return ref.digest ? `${fullName(ref)}@${ref.digest}` : canonicalReference(ref);
  } catch {
    return image;
  }
}

function repositoryBasename(image: string): string {
  try {
    return parseReference(image).repository.split("/").pop() ?? image;
  } catch {
    return image;
  }
}

interface Group {
  image: string;
  identity: string;
  name: string;
  qualified: string;
  userListed: boolean;
}

export function buildRelatedImages(sites: readonly ImageSite[]): RelatedImage[] {
  const candidates = sites
    .map((site, order) => ({ site, order, image: String(site.holder[site.key]) }))
    .filter((c) => c.site.inCsv)
    .sort((a, b) => PRIORITY[a.site.role] - PRIORITY[b.site.role] || a.order - b.order);
  const groups = new Map<string, Group>();
  for (const { site, image } of candidates) {
    const id = identity(image);
    const group = groups.get(id);
    if (!group) {
      const name = site.name || repositoryBasename(image);
      groups.set(id, {
        image,
        identity: id,
        name,
        qualified: site.qualifiedName || name,
        userListed: site.role === "relatedImage" && Boolean(site.name),
      });
    } else if (!group.userListed && group.name === repositoryBasename(group.image) && site.name) {
      // A later, better name for an image first seen without one (an unnamed relatedImages entry).
      group.name = site.name;
      group.qualified = site.qualifiedName || site.name;
    }
  }
  const list = [...groups.values()];
  const collisions = (g: Group) => list.filter((o) => o.name === g.name).length > 1;
  for (const g of list.filter((x) => !x.userListed && collisions(x))) g.name = g.qualified;
  for (const g of list.filter((x) => !x.userListed && collisions(x))) {
    g.name = `${g.name}-${createHash("sha256").update(g.identity).digest("hex").slice(0, 8)}`;
  }
  return list
    .map((g) => ({ name: g.name, image: g.image }))
    .sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : a.image < b.image ? -1 : a.image > b.image ? 1 : 0,
    );
}
