import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const CHART = resolve(__dirname, '../../charts/crondeck');

/**
 * The metric names that the chart's PrometheusRule and Grafana dashboard query, starting with
 * `prefix`: a rename in the code that they do not follow would leave alerts that never fire and
 * empty panels, so tests check each against a real scrape.
 */
export function chartMetricNames(prefix: string): string[] {
  const text = ['templates/prometheusrule.yaml', 'dashboards/crondeck.json']
    .map((file) => readFileSync(resolve(CHART, file), 'utf8'))
    .join('\n');
  return [...new Set(text.match(new RegExp(`\\b${prefix}[a-z_]+`, 'g')) ?? [])].sort();
}

/** The names in `names` that have no sample in a Prometheus text exposition. */
export function missingFromScrape(names: string[], exposition: string): string[] {
  const sampled = new Set(
    exposition
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)![0]),
  );
  return names.filter((name) => !sampled.has(name));
}
