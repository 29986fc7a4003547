#!/usr/bin/env bash
# Copies crds/*.yaml (generated from the zod schemas) into the chart as templates, each wrapped in
# the `crds.enabled` gate and annotated `helm.sh/resource-policy: keep` (uninstalling a release
# must not delete every ScheduledJob). test/packaging/chartCrds.test.ts fails when they drift.
#
# Usage: scripts/sync-chart-crds.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec node -e '
const fs = require("node:fs");
const path = require("node:path");
const YAML = require("yaml");
const out = "charts/crondeck/templates/crds";
fs.mkdirSync(out, { recursive: true });
const sources = fs.existsSync("crds") ? fs.readdirSync("crds").filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort() : [];
for (const f of fs.readdirSync(out)) if (!sources.includes(f)) fs.rmSync(path.join(out, f));
for (const file of sources) {
  const text = fs.readFileSync(path.join("crds", file), "utf8");
  if (text.includes("{{")) throw new Error(`crds/${file} contains "{{", which Helm would read as a template`);
  const crd = YAML.parse(text);
  crd.metadata.annotations = { ...(crd.metadata.annotations ?? {}), "helm.sh/resource-policy": "keep" };
  const body = YAML.stringify(crd, { lineWidth: 0 });
  fs.writeFileSync(path.join(out, file), `{{- if .Values.crds.enabled }}\n${body}{{- end }}\n`);
  console.log(`${out}/${file}`);
}
'
