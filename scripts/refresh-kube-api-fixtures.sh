#!/usr/bin/env bash
# Refreshes test/fixtures/kube-api from a newer recording of a real kube-apiserver (a folder with
# README.md, openapi/ and transcripts/, as the recorder writes it), then shows what changed.
#   npm run fixtures:kube-api -- /path/to/kube-api
set -euo pipefail
source_dir=${1:?usage: npm run fixtures:kube-api -- /path/to/kube-api (the recording folder)}
cd "$(dirname "$0")/.."
target=test/fixtures/kube-api
for part in README.md run-info.json openapi transcripts; do
  [ -e "$source_dir/$part" ] || { echo "$source_dir has no $part: not a kube-api recording" >&2; exit 1; }
done
rm -rf "$target"
mkdir -p "$target"
cp -r "$source_dir/README.md" "$source_dir/run-info.json" "$source_dir/openapi" "$source_dir/transcripts" "$target/"
chmod -R u+w "$target"
git status --short -- "$target"
echo "Now run npm test: the emulator is held to these answers (test/kube/transcriptReplay.test.ts)."
