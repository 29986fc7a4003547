import { execFileSync } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const PROMETHEUS_KINDS = new Set(['ServiceMonitor', 'PrometheusRule']);

type Json = Record<string, unknown>;

/**
 * Runs @kubernetes-models/prometheus-operator's own validate() on ServiceMonitors and
 * PrometheusRules (types, patterns, enums), in one child process: the package is ESM-only, which
 * Jest's CommonJS runtime cannot load. Unknown fields are the shared validator's job
 * (test/support/openapi). Returns the problems of each object, in order.
 */
export function validateWithPrometheusModels(objs: Json[]): string[][] {
  const script = `
    import { ServiceMonitor, PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
    const models = { ServiceMonitor, PrometheusRule };
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const out = JSON.parse(input).map((obj) => {
      const Model = models[obj.kind];
      if (!Model) return ['no model for ' + obj.kind];
      try { new Model(obj).validate(); return []; }
      catch (e) { return (e.errors ?? [e]).map((x) => (x.instancePath ?? '') + ' ' + x.message); }
    });
    process.stdout.write(JSON.stringify(out));
  `;
  const selected = objs.filter((o) => PROMETHEUS_KINDS.has(String(o.kind)));
  if (selected.length === 0) return objs.map(() => []);
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    input: JSON.stringify(selected),
    encoding: 'utf8',
  });
  const results = JSON.parse(stdout) as string[][];
  let i = 0;
  return objs.map((o) => (PROMETHEUS_KINDS.has(String(o.kind)) ? results[i++]! : []));
}
