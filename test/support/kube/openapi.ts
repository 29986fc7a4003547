import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Obj } from './types';

/**
 * The real server's OpenAPI v3 documents (kube-api/openapi, beside the repository), used to find
 * unknown fields of built-ins. Found from the repository's root, so that a compiled copy of the
 * emulator (the bench's, under .bench/build) reads the same documents.
 */
export const OPENAPI_DIR = path.resolve(repositoryRoot(__dirname), '../shared/kube-api/openapi');

function repositoryRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return from;
}

const docs = new Map<string, Record<string, Obj> | null>();

/** The component schemas of one OpenAPI v3 document, or null without the documents. */
export function openApiSchemas(file: string): Record<string, Obj> | null {
  if (!docs.has(file)) {
    const p = path.join(OPENAPI_DIR, file);
    docs.set(
      file,
      existsSync(p)
        ? ((JSON.parse(readFileSync(p, 'utf8')) as Obj).components.schemas as Record<string, Obj>)
        : null,
    );
  }
  return docs.get(file)!;
}
