// The default base of `tsop image build`: Google's distroless Node.js 20 image (Debian 12, no shell,
// no package manager, node at /nodejs/bin/node), pinned by the digest of its multi-platform index
// (amd64, arm64) so builds are repeatable. Change it here only; --base overrides it per build.
// The digest is the one public projects pin for this tag; tsop's tests cannot reach gcr.io and use
// --base with an image they assemble themselves (docs/images.md).
export const DEFAULT_BASE_IMAGE =
  "gcr.io/distroless/nodejs20-debian12:nonroot@sha256:2cd820156cf039c8b54ae2d2a97e424b6729070714de8707a6b79f20d56f6a9a";

// The V8 flags the operator's process runs with in the image (before dist/main.js). A controller
// allocates short-lived objects all day (watch events, decoded lists, reconcile copies); V8 lets the
// young generation's semi-spaces grow to 16 MiB each, resident for good once touched. 1 MiB keeps
// resident memory near the live data: bench:vs-runtime measured the twin's peak RSS at 1,000 Widgets
// 102 → 70 MiB (controller-runtime: 48) with the same operator CPU (docs/bench-runtime.md).
// The scaffolded Dockerfile's ENTRYPOINT carries the same flags (a test keeps them equal).
export const OPERATOR_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=1"];
