import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KUBE_API_OPENAPI_DIR } from '../kubeApiFixtures';
import type { Obj } from './types';

/** The real server's OpenAPI v3 documents (test/fixtures/kube-api/openapi), used to find unknown fields of built-ins. */
export const OPENAPI_DIR = KUBE_API_OPENAPI_DIR;

const docs = new Map<string, Record<string, Obj> | null>();

/** The component schemas of one OpenAPI v3 document, or null for a document the server was not asked for. */
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
