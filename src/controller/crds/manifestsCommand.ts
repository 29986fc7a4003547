import { parseArgs } from 'node:util';
import { renderCrdFiles } from './render';
import { writeCrds, writeManifestTree } from './writeCrds';

export const MANIFESTS_USAGE = `usage: crondeck manifests [--root DIR | --out DIR]

Writes the CustomResourceDefinitions (ScheduledJob, AlertConfig) as YAML. In a Crondeck source
tree: crds/, deploy/crds/ with deploy/kustomization.yaml, and the chart's templates/crds/.

  --root DIR      the source tree to write into (default: the current directory)
  --out DIR       write only the CRDs, into DIR; "-" writes them to stdout`;

/**
 * `crondeck manifests [--root DIR | --out DIR]`: writes the generated files of a source tree, or
 * only the CRDs into a directory (`--out -` prints them).
 */
export async function runManifestsCommand(args: string[], write: (text: string) => void): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { out: { type: 'string' }, root: { type: 'string' } },
  });
  if (values.out !== undefined && values.root !== undefined) {
    throw new Error('crondeck manifests takes --out or --root, not both');
  }
  if (values.out === '-') {
    write([...renderCrdFiles().values()].join('---\n'));
    return;
  }
  if (values.out !== undefined) {
    for (const path of await writeCrds(values.out)) write(`wrote ${path}\n`);
    return;
  }
  const { written, removed } = await writeManifestTree(values.root ?? '.');
  for (const path of removed) write(`removed ${path}\n`);
  for (const path of written) write(`wrote ${path}\n`);
}
