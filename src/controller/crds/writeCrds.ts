import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MANIFEST_DIRS, renderCrdFiles, renderManifestTree } from './render';

/** Writes every CRD into `dir`; returns the paths written. */
export async function writeCrds(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, content] of renderCrdFiles()) {
    const path = join(dir, name);
    await writeFile(path, content);
    written.push(path);
  }
  return written;
}

/** What shows that `root` is a Crondeck source tree (the chart and the kustomize base). */
const SOURCE_TREE_MARKERS = ['charts/crondeck/Chart.yaml', 'deploy/base/kustomization.yaml'];

/**
 * Writes the generated files of a Crondeck source tree (renderManifestTree) under `root`, and
 * removes any other YAML file from the directories that hold only generated ones (a file left in
 * crds/ would be sent by `kubectl apply -f crds/`). Returns the paths written and removed.
 */
export async function writeManifestTree(root: string): Promise<{ written: string[]; removed: string[] }> {
  const missing = SOURCE_TREE_MARKERS.filter((marker) => !existsSync(join(root, marker)));
  if (missing.length > 0) {
    throw new Error(
      `${root} is not a Crondeck source tree (no ${missing.join(', ')}): use --out DIR to write the CRDs alone`,
    );
  }
  const tree = renderManifestTree();
  const removed: string[] = [];
  for (const dir of [MANIFEST_DIRS.crds, MANIFEST_DIRS.deployCrds, MANIFEST_DIRS.chartCrds]) {
    const absolute = join(root, dir);
    if (!existsSync(absolute)) continue;
    for (const name of await readdir(absolute)) {
      if (!name.endsWith('.yaml') || tree.has(`${dir}/${name}`)) continue;
      await rm(join(absolute, name));
      removed.push(join(root, dir, name));
    }
  }
  const written: string[] = [];
  for (const [relative, content] of tree) {
    const path = join(root, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    written.push(path);
  }
  return { written, removed };
}
