import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderCrdDirectory } from './render';

/** Writes every CRD (and the kustomization listing them) into `dir`; returns the paths written. */
export async function writeCrds(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, content] of renderCrdDirectory()) {
    const path = join(dir, name);
    await writeFile(path, content);
    written.push(path);
  }
  return written;
}
