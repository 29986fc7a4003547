import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OBJECT_META_FIELDS } from './schema';
import { isPlainObject, type Obj } from './types';

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

/** Follows `$ref` (and a single-entry `allOf`) to the schema itself. */
function resolveSchema(all: Record<string, Obj>, s: Obj | undefined): Obj | undefined {
  let cur = s;
  for (let i = 0; cur && i < 5; i++) {
    const ref = (cur.$ref ?? cur.allOf?.[0]?.$ref) as string | undefined;
    if (!ref) return cur;
    cur = all[ref.replace('#/components/schemas/', '')];
  }
  return cur;
}

function walk(
  all: Record<string, Obj>,
  schema: Obj | undefined,
  value: unknown,
  p: string,
  out: string[],
): void {
  const s = resolveSchema(all, schema);
  if (!s) return;
  if (Array.isArray(value)) {
    if (s.items) value.forEach((v, i) => walk(all, s.items, v, `${p}[${i}]`, out));
    return;
  }
  if (!isPlainObject(value)) return;
  if (s.properties) {
    for (const k of Object.keys(value).sort()) {
      const child = (s.properties as Obj)[k];
      const cp = p ? `${p}.${k}` : k;
      if (!child) {
        out.push(cp);
        delete value[k];
      } else {
        walk(all, child, value[k], cp, out);
      }
    }
  } else if (isPlainObject(s.additionalProperties)) {
    for (const k of Object.keys(value)) walk(all, s.additionalProperties, value[k], p ? `${p}.${k}` : k, out);
  }
}

/**
 * A pruner for a built-in kind: removes fields its OpenAPI schema lacks and returns their paths
 * (14-dry-run #13/#14). Without the documents it prunes nothing.
 */
export function openApiPruner(file: string, schemaName: string): (obj: Obj) => string[] {
  return (obj) => {
    const all = openApiSchemas(file);
    if (!all) return [];
    const out: string[] = [];
    if (isPlainObject(obj.metadata)) {
      for (const k of Object.keys(obj.metadata).sort()) {
        if (!OBJECT_META_FIELDS.has(k)) {
          out.push(`metadata.${k}`);
          delete obj.metadata[k];
        }
      }
    }
    const { metadata, ...rest } = obj;
    const tmp: Obj = { ...rest };
    walk(
      all,
      { ...all[schemaName], properties: { ...(all[schemaName]?.properties as Obj), metadata: undefined } },
      tmp,
      '',
      out,
    );
    for (const k of Object.keys(obj)) if (k !== 'metadata' && !(k in tmp)) delete obj[k];
    obj.metadata = metadata;
    return out.filter((x) => x !== 'metadata');
  };
}
