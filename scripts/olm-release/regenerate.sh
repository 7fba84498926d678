#!/usr/bin/env bash
# Regenerates olm-releases/<version>/{crds.yaml,olm.yaml}: OLM's release manifests, rendered the way
# OLM's own release does it (Makefile `release` → scripts/package_release.sh → `helm template -n olm
# -f deploy/upstream/values.yaml --include-crds`, then scripts/package_quickstart.sh concatenates the
# files, dropping comment lines). Helm is built from the Go module proxy at the version OLM's
# vendor/modules.txt names (the module zip carries modules.txt but not the vendored sources). Not run in CI: the output
# is committed data (see olm-releases/README.md).
#
# Usage: bash scripts/olm-release/regenerate.sh [version]   (default: OLM_VERSION in src/common/pins.ts)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${1:-$(sed -n 's/^export const OLM_VERSION = "\(.*\)";$/\1/p' "$root/src/common/pins.ts")}"
module="github.com/operator-framework/operator-lifecycle-manager"
# OLM's release replaces the image refs with the digest of quay.io/operator-framework/olm:<version>
# (`docker inspect` after `docker pull`); without a container engine we keep the release tag.
image="${OLM_IMAGE:-quay.io/operator-framework/olm:${version}}"

src="$(go mod download -json "${module}@${version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d "$src/deploy/chart" ]] || { echo "no deploy/chart in $src" >&2; exit 1; }
helm_version="$(awk '$1 == "#" && $2 == "helm.sh/helm/v3" { print $3 }' "$src/vendor/modules.txt")"

cache="${TSOP_RIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tsop-rig}/helm-${helm_version}-olm-${version}"
helm="$cache/helm"
if [[ ! -x "$helm" ]]; then
  mkdir -p "$cache"
  echo "building helm ${helm_version} (go install helm.sh/helm/v3/cmd/helm@${helm_version})" >&2
  GOBIN="$cache" go install -trimpath "helm.sh/helm/v3/cmd/helm@${helm_version}"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -R "$src/deploy/chart" "$work/chart"
chmod -R u+w "$work/chart"
sed "s/^[Vv]ersion:.*\$/version: ${version#v}/" "$src/deploy/chart/Chart.yaml" > "$work/chart/Chart.yaml"
sed "s#^\(    ref: \)quay.io/operator-framework/olm@sha256:.*#\1${image}#" "$src/deploy/upstream/values.yaml" > "$work/values.yaml"
"$helm" template -n olm -f "$work/values.yaml" --include-crds --output-dir "$work/out" "$work/chart" > /dev/null
mkdir -p "$work/files"
cp -R "$work/out/olm/templates/." "$work/out/olm/crds/." "$work/files/"

out="$root/olm-releases/${version}"
mkdir -p "$out"
: > "$out/olm.yaml.tmp"
: > "$out/crds.yaml.tmp"
for f in "$work/files"/*.yaml; do
  if [[ $f == *.crd.yaml ]]; then target="$out/crds.yaml.tmp"; else target="$out/olm.yaml.tmp"; fi
  awk 'NR==1 && !/^---*/ {print "---"} !/^[[:space:]]*#/ {print}' "$f" >> "$target"
done
mv "$out/olm.yaml.tmp" "$out/olm.yaml"
mv "$out/crds.yaml.tmp" "$out/crds.yaml"
echo "wrote $out/crds.yaml and $out/olm.yaml (helm ${helm_version}, images ${image})" >&2
