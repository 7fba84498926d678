// relatedImages from RELATED_IMAGE_* env vars (operator-sdk §2.8), made deterministic:
// names are the env suffix in lower case with "_" → "-"; a name used for two images is prefixed
// with its container; an image listed under two names appears once, under its first name.
import { InvalidInputError } from "../common/errors.js";
import { asRecords, isRecord, nameOf, podSpecOf, str } from "../manifests/index.js";

export interface RelatedImage {
  name: string;
  image: string;
}

const PREFIX = "RELATED_IMAGE_";

export function relatedImageName(envName: string): string {
  return envName.slice(PREFIX.length).toLowerCase().replace(/_/g, "-");
}

export function relatedImages(
  deployments: readonly Record<string, unknown>[],
  notes: string[],
): RelatedImage[] {
  const found: Array<{ name: string; image: string; containerRef: string }> = [];
  for (const deployment of deployments) {
    const pod = podSpecOf(deployment) ?? {};
    const containers = [...asRecords(pod.containers), ...asRecords(pod.initContainers)];
    for (const container of containers) {
      const containerRef =
        containers.length > 1 ? `${nameOf(deployment)}-${str(container.name)}` : nameOf(deployment);
      for (const env of asRecords(container.env)) {
        const envName = str(env.name);
        if (!envName.startsWith(PREFIX)) continue;
        if (isRecord(env.valueFrom)) {
          throw new InvalidInputError(
            `Deployment ${nameOf(deployment)}, container ${str(container.name)}: ${envName} uses valueFrom; related images need a literal value`,
            { hint: `set ${envName} to the image reference itself` },
          );
        }
        const image = str(env.value);
        if (!image) {
          notes.push(`${envName} in Deployment ${nameOf(deployment)} is empty; not listed in relatedImages`);
          continue;
        }
        const name = relatedImageName(envName);
        if (!found.some((f) => f.name === name && f.image === image))
          found.push({ name, image, containerRef });
      }
    }
  }
  const imagesByName = new Map<string, Set<string>>();
  for (const f of found) imagesByName.set(f.name, (imagesByName.get(f.name) ?? new Set()).add(f.image));
  const out: RelatedImage[] = [];
  const seenImages = new Map<string, string>();
  for (const f of found) {
    const name = (imagesByName.get(f.name)?.size ?? 0) > 1 ? `${f.containerRef}-${f.name}` : f.name;
    const first = seenImages.get(f.image);
    if (first !== undefined) {
      if (first !== name)
        notes.push(`image ${f.image} is referenced as "${first}" and "${name}"; listed once as "${first}"`);
      continue;
    }
    seenImages.set(f.image, name);
    out.push({ name, image: f.image });
  }
  return out;
}
