// The default base of `tsop image build`: Google's distroless Node.js 20 image (Debian 12, no shell,
// no package manager, node at /nodejs/bin/node), pinned by the digest of its multi-platform index
// (amd64, arm64) so builds are repeatable. Change it here only; --base overrides it per build.
// The digest is the one public projects pin for this tag; tsop's tests cannot reach gcr.io and use
// --base with an image they assemble themselves (docs/images.md).
export const DEFAULT_BASE_IMAGE =
  "gcr.io/distroless/nodejs20-debian12:nonroot@sha256:2cd820156cf039c8b54ae2d2a97e424b6729070714de8707a6b79f20d56f6a9a";
