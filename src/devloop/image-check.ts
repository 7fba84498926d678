// `tsop deploy` checks that the images it is about to run exist in their registries: a cluster that
// never pulls (kwok, a kind cluster without the image) would otherwise report the manager ready for
// a mistyped --image. An image its registry says it does not have stops the deploy; one tsop cannot
// ask about (no route, no credentials, a registry only the cluster reaches) gets a warning.
// --skip-image-check turns the check off.
import { errorFrom, InvalidInputError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import type { RegistryClientOptions } from "../oci/client.js";
import { RegistryError } from "../oci/errors.js";
import type { KubeObject } from "../kube/objects.js";
import { podSpecOf } from "../manifests/index.js";
import { messages } from "./messages.js";

/** Every container and init container image of the objects' pod templates, sorted, once each. */
export function imagesOf(objects: KubeObject[]): string[] {
  const images = new Set<string>();
  for (const object of objects) {
    const pod = podSpecOf(object as unknown as Record<string, unknown>);
    for (const key of ["initContainers", "containers"]) {
      const containers = (Array.isArray(pod?.[key]) ? pod[key] : []) as Array<{ image?: unknown }>;
      for (const c of containers) if (typeof c.image === "string" && c.image) images.add(c.image);
    }
  }
  return [...images].sort();
}

export async function checkImagesExist(
  images: string[],
  registry: RegistryClientOptions,
  reporter: Reporter,
): Promise<void> {
  if (images.length === 0) return;
  const { resolveDigests } = await import("../oci/resolve.js");
  const progress = reporter.progress(messages.checkingImages(images.length));
  const results = await resolveDigests(images, { ...registry, retries: 0 });
  const missing: string[] = [];
  for (const result of results) {
    if ("digest" in result) reporter.debug(`${result.reference}: ${result.digest}`);
    else if (result.error instanceof RegistryError && result.error.kind === "not-found")
      missing.push(`${result.reference}: ${result.error.message}`);
    else reporter.warn(messages.imageUnchecked(result.reference, result.error.message));
  }
  if (missing.length === 0) {
    progress.succeed(messages.imagesChecked(images.length));
    return;
  }
  progress.fail(messages.imagesMissing(missing.length));
  throw errorFrom(messages.imageNotFound(missing), InvalidInputError);
}
