/**
 * The chart's CRD templates are crds/*.yaml (generated from the zod schemas) wrapped in the
 * `crds.enabled` gate and annotated `helm.sh/resource-policy: keep`; `crondeck manifests` writes
 * them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CHART_DIR, CRDS_DIR, crdFiles, helmTemplate, kubeTools } from './support';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML
type AnyObject = Record<string, any>;

const TEMPLATES = path.join(CHART_DIR, 'templates', 'crds');
const templates = () => (existsSync(TEMPLATES) ? readdirSync(TEMPLATES).sort() : []);
const GATE_OPEN = '{{- if .Values.crds.enabled }}\n';
const GATE_CLOSE = '{{- end }}\n';

describe('the chart CRDs', () => {
  beforeAll(() => {
    kubeTools();
  }, 120_000);

  test('there is one template per file of crds/, and no other', () => {
    expect(templates()).toEqual(crdFiles());
  });

  test.each(crdFiles())(
    '%s: gated, annotated keep, otherwise identical to crds/ (run `crondeck manifests`)',
    (file) => {
      const template = readFileSync(path.join(TEMPLATES, file), 'utf8');
      expect(template.startsWith(GATE_OPEN)).toBe(true);
      expect(template.endsWith(GATE_CLOSE)).toBe(true);
      const wrapped = YAML.parse(template.slice(GATE_OPEN.length, -GATE_CLOSE.length)) as AnyObject;
      expect(wrapped.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
      const source = YAML.parse(readFileSync(path.join(CRDS_DIR, file), 'utf8')) as AnyObject;
      const expected = structuredClone(source);
      expected.metadata.annotations = {
        ...(source.metadata.annotations ?? {}),
        'helm.sh/resource-policy': 'keep',
      };
      expect(wrapped).toEqual(expected);
    },
  );

  test('helm template renders them by default and not with crds.enabled=false', () => {
    const names = (args: string[]) =>
      helmTemplate(args)
        .filter((o) => o.kind === 'CustomResourceDefinition')
        .map((o) => o.metadata.name)
        .sort();
    expect(names([])).toEqual([
      'alertconfigs.crondeck.dev',
      'cronjobwatches.crondeck.dev',
      'scheduledjobs.crondeck.dev',
    ]);
    expect(names(['--set', 'crds.enabled=false'])).toEqual([]);
  });
});
