#!/usr/bin/env bash
# Bun from the npm registry (its platform package, e.g. @oven/bun-linux-x64), for the bench's
# stand-in of cronbase, the Bun + SQLite scheduler that issue 22 compares Crondeck with
# (bench/standins/). Prints the directory holding `bun`:
#
#   "$(bash scripts/bun.sh)/bun" --version
#
#   BUN_VERSION  which Bun (default: the one the bench was measured with)
#   BUN_DIR      where (default: /opt/crondeck-bun as root, else ~/.cache/crondeck-bun)
set -euo pipefail

VERSION="${BUN_VERSION:-1.4.5}"

fail() {
  echo "bun: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no Bun package for $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) fail "no Bun package for $(uname -m)" ;;
esac

if [[ $(id -u) -eq 0 ]]; then
  dir="${BUN_DIR:-/opt/crondeck-bun}"
else
  dir="${BUN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crondeck-bun}"
fi
exec bash "$(dirname "$0")/registry-binary.sh" bun "@oven/bun-$os-$arch" "$VERSION" "$dir"
