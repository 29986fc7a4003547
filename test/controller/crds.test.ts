import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { KUBE_API_TRANSCRIPTS_DIR } from '../support/kubeApiFixtures';
import { parse, parseAllDocuments } from 'yaml';
import { runManifestsCommand } from '../../src/controller/crds/manifestsCommand';
import { alertConfigCrd, crondeckCrds, scheduledJobCrd } from '../../src/controller/crds/definitions';
import { renderCrdFiles, renderManifestTree } from '../../src/controller/crds/render';
import { writeCrds } from '../../src/controller/crds/writeCrds';
import { crdProblems, undescribedFields } from '../support/openapi/crdRules';
import { validateKubernetesObject } from '../support/openapi/kubernetesSchemas';
import type { Loose } from '../support/openapi/loose';

const REPO_ROOT = resolve(__dirname, '../..');
/** The directories that hold generated files only. */
const GENERATED_DIRS = ['crds', 'deploy/crds', 'charts/crondeck/templates/crds'];

function transcriptBody(file: string, index: number, side: 'request' | 'response'): Loose {
  const transcript = JSON.parse(readFileSync(resolve(KUBE_API_TRANSCRIPTS_DIR, file), 'utf8'));
  return transcript.exchanges[index][side].body;
}

/** A copy of the parts of a source tree that `crondeck manifests` needs to recognise it. */
function scratchSourceTree(): string {
  const root = mkdtempSync(join(tmpdir(), 'crondeck-tree-'));
  for (const marker of ['charts/crondeck/Chart.yaml', 'deploy/base/kustomization.yaml']) {
    mkdirSync(dirname(join(root, marker)), { recursive: true });
    writeFileSync(join(root, marker), readFileSync(join(REPO_ROOT, marker)));
  }
  return root;
}

describe('checked-in generated files', () => {
  it('are exactly what `crondeck manifests` generates (run it after changing a resource schema)', () => {
    for (const [path, content] of renderManifestTree()) {
      expect(`${path}:\n${readFileSync(join(REPO_ROOT, path), 'utf8')}`).toBe(`${path}:\n${content}`);
    }
  });

  it('are the only files of their directories, so `kubectl apply -f crds/` sends CRDs alone', () => {
    const generated = [...renderManifestTree().keys()];
    for (const dir of GENERATED_DIRS) {
      expect(
        readdirSync(join(REPO_ROOT, dir))
          .map((name) => `${dir}/${name}`)
          .sort(),
      ).toEqual(generated.filter((path) => dirname(path) === dir).sort());
    }
  });

  it('parse back into the generated objects', () => {
    for (const crd of crondeckCrds()) {
      for (const dir of ['crds', 'deploy/crds']) {
        expect(parse(readFileSync(join(REPO_ROOT, dir, `${crd.metadata.name}.yaml`), 'utf8'))).toEqual(crd);
      }
    }
  });

  it('are written by writeCrds into a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crondeck-crds-'));
    const written = await writeCrds(join(dir, 'out'));
    expect(written.map((path) => path.slice(dir.length))).toEqual([
      '/out/scheduledjobs.crondeck.dev.yaml',
      '/out/alertconfigs.crondeck.dev.yaml',
      '/out/cronjobwatches.crondeck.dev.yaml',
    ]);
    expect(readFileSync(written[0]!, 'utf8')).toBe(renderCrdFiles().get('scheduledjobs.crondeck.dev.yaml'));
  });
});

describe('crondeck manifests', () => {
  it('writes the generated files of a source tree and removes stale ones from their directories', async () => {
    const root = scratchSourceTree();
    mkdirSync(join(root, 'crds'));
    writeFileSync(join(root, 'crds', 'kustomization.yaml'), 'kind: Kustomization\n');
    const output: string[] = [];
    await runManifestsCommand(['--root', root], (text) => output.push(text));
    const tree = renderManifestTree();
    expect(output.join('')).toBe(
      [`removed ${root}/crds/kustomization.yaml`, ...[...tree.keys()].map((path) => `wrote ${root}/${path}`)]
        .map((line) => `${line}\n`)
        .join(''),
    );
    for (const [path, content] of tree) expect(readFileSync(join(root, path), 'utf8')).toBe(content);
    expect(existsSync(join(root, 'crds', 'kustomization.yaml'))).toBe(false);
  });

  it('refuses a directory that is not a source tree, pointing at --out', async () => {
    const root = mkdtempSync(join(tmpdir(), 'crondeck-elsewhere-'));
    await expect(runManifestsCommand(['--root', root], () => undefined)).rejects.toThrow(
      `${root} is not a Crondeck source tree (no charts/crondeck/Chart.yaml, deploy/base/kustomization.yaml): use --out DIR to write the CRDs alone`,
    );
    expect(readdirSync(root)).toEqual([]);
  });

  it('writes the CRDs alone into --out and says which files', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'crondeck-manifests-')), 'crds');
    const output: string[] = [];
    await runManifestsCommand(['--out', dir], (text) => output.push(text));
    expect(output.join('')).toBe(
      `wrote ${dir}/scheduledjobs.crondeck.dev.yaml\nwrote ${dir}/alertconfigs.crondeck.dev.yaml\n` +
        `wrote ${dir}/cronjobwatches.crondeck.dev.yaml\n`,
    );
    expect(readdirSync(dir).sort()).toEqual([
      'alertconfigs.crondeck.dev.yaml',
      'cronjobwatches.crondeck.dev.yaml',
      'scheduledjobs.crondeck.dev.yaml',
    ]);
  });

  it('prints them as one YAML stream with --out -', async () => {
    const output: string[] = [];
    await runManifestsCommand(['--out', '-'], (text) => output.push(text));
    const documents = parseAllDocuments(output.join('')).map((document) => document.toJS());
    expect(documents).toEqual(crondeckCrds());
  });
});

describe.each(crondeckCrds().map((crd) => [crd.spec.names.kind, crd] as const))(
  'the %s CRD',
  (_kind, crd) => {
    it('validates against the apiextensions.k8s.io/v1 schema of the real server', () => {
      expect(validateKubernetesObject(crd as never)).toEqual({ valid: true, errors: [] });
    });

    it('keeps the structural rules the real server enforces', () => {
      expect(crdProblems(crd)).toEqual([]);
    });

    it('describes every field, for kubectl explain', () => {
      expect(undescribedFields(crd.spec.versions[0]!.schema.openAPIV3Schema)).toEqual([]);
    });

    it('has the status subresource and the crondeck category', () => {
      expect(crd.spec.versions[0]!.subresources).toEqual({ status: {} });
      expect(crd.spec.names.categories).toEqual(['crondeck']);
      expect(crd.spec.scope).toBe('Namespaced');
    });
  },
);

describe('the rule checker', () => {
  it('finds what the real server refused in an invalid CRD (01-crd-lifecycle, exchange 3)', () => {
    const invalid = transcriptBody('01-crd-lifecycle.json', 2, 'request');
    const refused = transcriptBody('01-crd-lifecycle.json', 2, 'response');
    const problems = crdProblems(invalid);
    // Each cause of the real 422 is found...
    for (const cause of refused.details.causes as { field: string }[]) {
      const field = cause.field
        .replace('spec.validation.openAPIV3Schema', 'spec.versions[0].schema.openAPIV3Schema')
        .replace('spec.additionalPrinterColumns', 'spec.versions[0].additionalPrinterColumns');
      expect(problems.some((problem) => problem.startsWith(field))).toBe(true);
    }
    // ...and so are the defaults outside their own schema, which the server checks once the rest is valid.
    expect(problems).toEqual(
      expect.arrayContaining([
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[concurrencyPolicy].default: does not match its own schema',
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[timeoutSeconds].default: does not match its own schema',
        'spec.names.kind: must be CamelCase, starting upper case',
      ]),
    );
  });

  it('accepts the CRD the real server accepted (exchange 4)', () => {
    expect(crdProblems(transcriptBody('01-crd-lifecycle.json', 3, 'request'))).toEqual([]);
  });

  // 17-crd-validation, by exchange number: the variants of the schema forms the generator writes or
  // might (structure, defaults, int-or-string, list types, patterns, printer columns).
  const SCHEMA_FORMS = {
    structure: [25, 26, 27, 28, 29, 30, 31, 32, 34, 35, 51, 52, 110, 111, 112, 113],
    defaults: [37, 38, 39, 40, 41, 42, 43, 47, 49, 50],
    'int-or-string': [53, 54, 55, 56, 57],
    'list types': [58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72],
    patterns: [99, 100, 101, 102],
    'printer columns': [122, 123, 124, 125, 126, 127, 128, 129],
  };

  it.each(Object.entries(SCHEMA_FORMS))('agrees with the real server on %s', (_forms, exchanges) => {
    const verdicts = exchanges.map((i) => {
      const problems = crdProblems(transcriptBody('17-crd-validation.json', i - 1, 'request'));
      return `#${i} ${problems.length > 0 ? 'refused' : 'accepted'}`;
    });
    const recorded = exchanges.map((i) => {
      const status = transcriptBody('17-crd-validation.json', i - 1, 'response').code ?? 201;
      return `#${i} ${status >= 400 ? 'refused' : 'accepted'}`;
    });
    expect(verdicts).toEqual(recorded);
  });

  // 17-crd-validation: the root metadata variants, by exchange number.
  const rootMetadata = { accepted: [2, 4, 5, 6, 13], refused: [3, 7, 8, 9, 10, 11, 12, 17, 47] };

  it.each(rootMetadata.accepted)('accepts the root metadata the real server accepted (17 #%i)', (i) => {
    expect(crdProblems(transcriptBody('17-crd-validation.json', i - 1, 'request'))).toEqual([]);
  });

  it.each(rootMetadata.refused)('refuses the root metadata the real server refused (17 #%i)', (i) => {
    const refused = transcriptBody('17-crd-validation.json', i - 1, 'response');
    const problems = crdProblems(transcriptBody('17-crd-validation.json', i - 1, 'request'));
    for (const cause of refused.details.causes as { field: string }[]) {
      const field = cause.field.replace(
        'spec.validation.openAPIV3Schema',
        'spec.versions[0].schema.openAPIV3Schema',
      );
      expect(problems).toEqual(expect.arrayContaining([expect.stringContaining(`${field}:`)]));
    }
  });
});

describe('ScheduledJob CRD', () => {
  const crd = scheduledJobCrd();
  const version = crd.spec.versions[0]!;

  it('has the short names and printer columns of kubectl get', () => {
    expect(crd.metadata.name).toBe('scheduledjobs.crondeck.dev');
    expect(crd.spec.names.shortNames).toEqual(['sj', 'sjob']);
    expect(
      version.additionalPrinterColumns.map((column) => [column.name, column.type, column.jsonPath]),
    ).toEqual([
      ['Schedule', 'string', '.spec.schedule'],
      ['Suspended', 'boolean', '.spec.suspend'],
      ['Last Status', 'string', '.status.lastStatus'],
      ['Last Run', 'date', '.status.lastRun'],
      ['Last Failure', 'string', '.status.lastFailureReason'],
      ['Failed', 'date', '.status.lastFailureTime'],
      ['Next Run', 'string', '.status.nextRun'],
      ['Age', 'date', '.metadata.creationTimestamp'],
    ]);
  });

  it('defaults and bounds the spec', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec as Record<string, Loose>;
    expect(spec.required).toEqual(['schedule', 'command']);
    const fields = spec.properties;
    expect(fields.suspend.default).toBe(false);
    expect(fields.concurrencyPolicy).toMatchObject({
      default: 'Forbid',
      enum: ['Forbid', 'Allow', 'Replace'],
    });
    expect(fields.successfulJobsHistoryLimit.default).toBe(3);
    expect(fields.failedJobsHistoryLimit.default).toBe(1);
    expect(fields.timeout).toMatchObject({ type: 'integer', minimum: 0, maximum: 86400, default: 0 });
    expect(fields.env['x-kubernetes-list-type']).toBe('map');
  });
});

describe('AlertConfig CRD', () => {
  it('has its short name', () => {
    const crd = alertConfigCrd();
    expect(crd.metadata.name).toBe('alertconfigs.crondeck.dev');
    expect(crd.spec.names.shortNames).toEqual(['ac']);
  });
});
