import { parseArgs } from 'node:util';
import { renderCrdFiles } from './render';
import { writeCrds } from './writeCrds';

export const MANIFESTS_USAGE = `usage: crondeck manifests [--out DIR]

Writes the CustomResourceDefinitions (ScheduledJob, AlertConfig) as YAML.

  --out DIR       directory to write them to (default: crds); "-" writes them to stdout`;

/** `crondeck manifests [--out DIR]`: writes the generated CRDs, or prints them with `--out -`. */
export async function runManifestsCommand(args: string[], write: (text: string) => void): Promise<void> {
  const { values } = parseArgs({ args, options: { out: { type: 'string', default: 'crds' } } });
  const out = values.out ?? 'crds';
  if (out === '-') {
    write([...renderCrdFiles().values()].join('---\n'));
    return;
  }
  for (const path of await writeCrds(out)) write(`wrote ${path}\n`);
}
