// spec.relatedImages, the one builder: `tsop bundle` always lists the CSV's images this way, and
// --use-image-digests rebuilds the list the same way from the pinned images (so the entries and
// their names do not depend on the flag). Deterministically:
//   - one entry per image (same repository and digest = same image, however it was spelled);
//   - its name comes from, in this order: an existing relatedImages entry (kept as the user wrote
//     it), a RELATED_IMAGE_<NAME> variable (<name> lower-cased, '_' -> '-'), the container name,
//     else the repository's last path component;
//   - when two images want the same name, the ones not listed by the user take a qualified name
//     (<deployment>-<container>, <container>-<env name>), then a short hash of the image;
//   - sorted by name, then image.
import { createHash } from "node:crypto";
import { findImageSites, type ImageSite, type SiteProblem, type SiteRole } from "./image-sites.js";
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
  /** Other names a RELATED_IMAGE_ variable or an entry gave the same image. */
  alsoNamed: Set<string>;
  /** Whether a site named it (else the repository's basename stands in). */
  named: boolean;
}

const NAMING_ROLES = new Set<SiteRole>(["env", "relatedImage"]);

/** The relatedImages of a set of image sites; `notes` hears of images listed under two names. */
export function buildRelatedImages(sites: readonly ImageSite[], notes?: string[]): RelatedImage[] {
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
        alsoNamed: new Set(),
        named: Boolean(site.name),
      });
    } else if (!group.named && site.name) {
      // A later, better name for an image first seen without one (an unnamed relatedImages entry).
      group.name = site.name;
      group.named = true;
      group.qualified = site.qualifiedName || site.name;
    } else if (NAMING_ROLES.has(site.role) && site.name && site.name !== group.name) {
      group.alsoNamed.add(site.name);
    }
  }
  const list = [...groups.values()];
  const collisions = (g: Group) => list.filter((o) => o.name === g.name).length > 1;
  for (const g of list.filter((x) => !x.userListed && collisions(x))) g.name = g.qualified;
  for (const g of list.filter((x) => !x.userListed && collisions(x))) {
    g.name = `${g.name}-${createHash("sha256").update(g.identity).digest("hex").slice(0, 8)}`;
  }
  for (const g of list) {
    for (const other of g.alsoNamed) {
      if (other !== g.name)
        notes?.push(
          `image ${g.image} is referenced as "${g.name}" and "${other}"; listed once as "${g.name}"`,
        );
    }
  }
  return list
    .map((g) => ({ name: g.name, image: g.image }))
    .sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : a.image < b.image ? -1 : a.image > b.image ? 1 : 0,
    );
}

/** relatedImages of one ClusterServiceVersion, with the problems of its image sites. */
export function relatedImagesOf(csv: Record<string, unknown>): {
  relatedImages: RelatedImage[];
  problems: SiteProblem[];
  notes: string[];
} {
  const sites: ImageSite[] = [];
  const problems: SiteProblem[] = [];
  findImageSites(csv, sites, problems);
  const notes: string[] = [];
  return { relatedImages: buildRelatedImages(sites, notes), problems, notes };
}
