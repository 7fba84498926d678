// A bundle image as the olm.bundle blob `opm render <image>` makes of it: the properties of
// src/bundle/fbc-properties.ts (olm.package, olm.gvk, olm.gvk.required, the metadata files'),
// then one olm.bundle.object per manifest (its JSON as Go's encoding/json writes an unstructured
// object, base64) sorted by value and kept last, and relatedImages sorted by image, each with a
// name ("" when the CSV gives none).
import { InvalidInputError } from "../common/errors.js";
import { bundleProperties, bundleRelatedImages, goJson } from "../bundle/fbc-properties.js";
import type { LoadedBundle } from "../bundle/load/types.js";
import { isRecord, type ManifestObject, str } from "../manifests/index.js";
import type { BundleBlob, Property } from "./fbc.js";

export const ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1";
export const ANNOTATION_CHANNELS = "operators.operatorframework.io.bundle.channels.v1";
export const ANNOTATION_DEFAULT_CHANNEL = "operators.operatorframework.io.bundle.channel.default.v1";

/** Go's json.Marshal also escapes U+2028 and U+2029. */
const goJsonText = (value: unknown) =>
  goJson(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** The package, CSV and objects of a loaded bundle; an error names what is missing. */
export function bundleParts(bundle: LoadedBundle, image: string) {
  const errors = bundle.loadFindings.filter((f) => f.level === "error");
  if (errors.length > 0)
    throw new InvalidInputError(
      `${image} is not a readable bundle: ${errors.map((f) => `${f.file ?? ""} ${f.message}`.trim()).join("; ")}`,
    );
  const packageName = str(bundle.annotations?.[ANNOTATION_PACKAGE]);
  if (!packageName)
    throw new InvalidInputError(
      `${image} has no ${ANNOTATION_PACKAGE} label/annotation; it is not a bundle image`,
      {
        hint: "Give the bundle image (tsop bundle push), not the operator image.",
      },
    );
  if (!bundle.csv)
    throw new InvalidInputError(`${image} holds no ClusterServiceVersion`, {
      hint: "A bundle's manifests/ holds its CSV; rebuild it with tsop bundle.",
    });
  return { packageName, csv: bundle.csv.object, objects: bundle.manifests.map((m) => m.object) };
}

export function bundleBlob(bundle: LoadedBundle, image: string): BundleBlob {
  const { packageName, csv, objects } = bundleParts(bundle, image);
  const properties: Property[] = bundleProperties({
    packageName,
    csv,
    crds: bundle.crds.map((c) => c.object),
    dependencies: bundle.dependencies,
    properties: bundle.properties,
  });
  const objectProperties = objects
    .map((o: ManifestObject) => Buffer.from(goJsonText(o)).toString("base64"))
    .sort()
    .map((data) => ({ type: "olm.bundle.object", value: { data } }));
  const relatedImages = bundleRelatedImages(csv, image)
    .map((r) => ({ name: r.name ?? "", image: r.image }))
    .sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : 0));
  const meta = isRecord(csv.metadata) ? csv.metadata : {};
  return {
    schema: "olm.bundle",
    name: str(meta.name),
    package: packageName,
    image,
    properties: [...properties, ...objectProperties],
    ...(relatedImages.length > 0 ? { relatedImages } : {}),
  };
}
