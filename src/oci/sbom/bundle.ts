// The SBOMs of the images that carry no npm packages: a bundle image (its files, each by SHA-256,
// and every image its ClusterServiceVersion names) and a catalog image (its base by digest, its
// files, and every bundle image it lists). Same BOM writer as the operator image (cyclonedx.ts), so
// the same inputs give the same bytes. An image named by digest is listed with that digest; one
// named by tag only by its tag (nothing is resolved: the SBOM says what the manifests say).
import { csvImagesIn } from "../csv-images.js";
import { parseReference } from "../reference.js";
import { compareRefs, cyclonedxDocument, imageComponent, type SbomComponent } from "./cyclonedx.js";
import type { HashedFile } from "./files.js";

export interface ImageSbomSubject {
  /** Where the image is pushed: registry/repository. */
  repository: string;
  tag: string;
}

interface CommonInput {
  subject: ImageSbomSubject;
  files: readonly HashedFile[];
  tool: { version: string };
  epoch?: number;
}

function fileComponent(file: HashedFile): SbomComponent {
  return {
    type: "file",
    "bom-ref": `file:${file.path}`,
    name: file.path,
    hashes: [{ alg: "SHA-256", content: file.digest.replace(/^sha256:/, "") }],
  };
}

/**
 * A reference as it is written → a container component (digest when it has one, else its tag). One
 * that does not parse (a template placeholder) is listed as written: the SBOM reports, `bundle
 * validate` judges.
 */
export function referencedImage(reference: string): SbomComponent {
  let ref;
  try {
    ref = parseReference(reference);
  } catch {
    return { type: "container", "bom-ref": `image:${reference}`, name: reference };
  }
  return imageComponent(`${ref.registry}/${ref.repository}`, ref.digest, ref.tag);
}

/** Components once each (by bom-ref), sorted by name (the repository), then bom-ref. */
function distinct(components: SbomComponent[]): SbomComponent[] {
  const byRef = new Map(components.map((c) => [c["bom-ref"], c]));
  return [...byRef.values()].sort(
    (a, b) => compareRefs(a.name, b.name) || compareRefs(a["bom-ref"], b["bom-ref"]),
  );
}

function document(input: CommonInput, images: SbomComponent[]): Buffer {
  const files = input.files.map(fileComponent);
  const subjectRef = imageComponent(input.subject.repository, undefined, input.subject.tag)["bom-ref"];
  return cyclonedxDocument({
    subject: {
      type: "container",
      "bom-ref": subjectRef,
      name: input.subject.repository,
      version: input.subject.tag,
    },
    components: [...images, ...files],
    // The images are what the subject needs; its files are what it is made of.
    dependsOn: images.map((c) => c["bom-ref"]),
    tool: input.tool,
    ...(input.epoch !== undefined ? { epoch: input.epoch } : {}),
  });
}

/** A bundle image's BOM: its files (manifests/, metadata/, tests/) and the images its CSV names. */
export async function bundleSbom(input: CommonInput & { dir: string }): Promise<Buffer> {
  const images = distinct(
    (
      await csvImagesIn(
        input.dir,
        input.files.map((f) => f.path).filter((p) => p.startsWith("manifests/")),
      )
    ).map(referencedImage),
  );
  return document(input, images);
}

/** A catalog image's BOM: its base by digest, its files (configs/…), and each bundle image it lists. */
export function catalogSbom(
  input: CommonInput & { base: { repository: string; digest: string }; bundleImages: readonly string[] },
): Buffer {
  const images = distinct([
    imageComponent(input.base.repository, input.base.digest),
    ...input.bundleImages.map(referencedImage),
  ]);
  return document(input, images);
}
