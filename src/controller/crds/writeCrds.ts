import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderCrdFiles } from './render';

/** Writes every CRD into `dir` and returns the paths written. */
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
