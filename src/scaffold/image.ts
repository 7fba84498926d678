// The operator image reference given to init: split into name and tag for config/manager's
// kustomize `images` entry.
import { imageReferenceProblem } from "../oci/reference.js";

const COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const NAME = new RegExp(`^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?${COMPONENT}(?:/${COMPONENT})*$`);
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export interface ImageParts {
  name: string;
  tag: string;
}

/** `example.com/op:0.0.1` → { name: "example.com/op", tag: "0.0.1" }; a missing tag means `latest`. */
export function splitImage(image: string): ImageParts | undefined {
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  const hasTag = colon > slash;
  const name = hasTag ? image.slice(0, colon) : image;
  const tag = hasTag ? image.slice(colon + 1) : "latest";
  if (!NAME.test(name) || !TAG.test(tag)) return undefined;
  return { name, tag };
}

export function checkImage(image: string): string | undefined {
  if (image.includes("@")) return `--image "${image}" has a digest; give a tag (e.g. :0.0.1)`;
  // Distribution's grammar too: it also bounds the name to 255 characters.
  const problem = imageReferenceProblem(image);
  if (splitImage(image) === undefined || problem) {
    return `--image "${image}" is not an image reference${problem ? ` (${problem})` : ""} (e.g. quay.io/example/memcached-operator:0.0.1)`;
  }
  return undefined;
}
