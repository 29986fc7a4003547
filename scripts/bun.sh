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

REGISTRY_BINARY_DIR="${BUN_DIR:-}" exec bash "$(dirname "$0")/registry-binary.sh" \
  bun @oven/bun "$VERSION" crondeck-bun aarch64
