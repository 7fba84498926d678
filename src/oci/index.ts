// oci/: OCI images and registries without a container engine: references, the registry client
// and what tsop does with images (bundle images, digest pinning, push, pull). The operator's own
// image (`tsop image build`) is built in operator-image/ and shipped through here.
//   reference.ts     parse/normalise image references (docker.io, library/, ports, tags, digests)
//   credentials.ts   auth files and docker-credential-* helpers → credentials for a registry
//   proxy.ts         HTTPS_PROXY/HTTP_PROXY/NO_PROXY with Go's rules
//   transport.ts     HTTP(S) with CA bundles, CONNECT tunnels, timeouts, retries with backoff
//   challenge.ts     WWW-Authenticate parsing
//   client.ts        OCI distribution API: ping/auth (Basic, Bearer tokens), manifests, blobs, uploads
//   resolve.ts       distinct references → digests, concurrently (limit.ts)
//   pin.ts           --use-image-digests over bundle objects: image-sites.ts (where images are)
//                    → lockfile.ts / resolve.ts → assign fields → related-images.ts
//   bundle-image.ts  bundle dir → reproducible FROM-scratch image (layer, config, manifest)
//   push.ts          image → registry, or → OCI image layout
//   pull.ts          registry or OCI layout (oci-layout-source.ts) → verified blobs → safe
//                    extraction (extract.ts); pullBundleToTemp for every command that reads a bundle
// errors.ts classifies failures; messages.ts holds the user-facing text.
export { RegistryClient, type RegistryClientOptions } from "./client.js";
export { RegistryError, type RegistryFailureKind, UnsafeArchiveError } from "./errors.js";
export { type BuiltImage, buildBundleImage } from "./bundle-image.js";
export { type PinOptions, type PinResult, pinBundleImages } from "./pin.js";
export { type PullOptions, type PullResult, pullBundleImage, pullBundleToTemp } from "./pull.js";
export {
  type BundlePushOptions,
  type BundlePushResult,
  pushBundle,
  pushImage,
  writeOciLayout,
} from "./push.js";
export {
  canonicalReference,
  familiarReference,
  type ImageReference,
  InvalidReferenceError,
  parseReference,
} from "./reference.js";
export { type Resolution, type ResolveOptions, resolveDigests } from "./resolve.js";
