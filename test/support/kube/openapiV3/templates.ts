import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_DIR } from '../openapi';
import { clone, isPlainObject, type Obj } from '../types';

/**
 * The recorded server's OpenAPI v3 documents (kube-api/openapi), read once: served as they are
 * for the group versions they cover, and used as templates for the ones they do not (a CRD's
 * group, apps/v1 …): the server generates every group version's paths the same way.
 */

const texts = new Map<string, string | null>();

/** The file's text (`api__v1.json`, `apis__batch__v1.json`), or null when it was not recorded. */
export function recordedText(file: string): string | null {
  if (!texts.has(file)) {
    const p = path.join(OPENAPI_DIR, file);
    texts.set(file, existsSync(p) ? readFileSync(p, 'utf8') : null);
  }
  return texts.get(file)!;
}

const parsed = new Map<string, Obj>();

/** A fresh copy of a recorded document; throws when it was not recorded. */
export function recordedDocument(file: string): Obj {
  if (!parsed.has(file)) {
    const text = recordedText(file);
    if (text === null) throw new Error(`the OpenAPI document ${file} was not recorded (${OPENAPI_DIR})`);
    parsed.set(file, JSON.parse(text) as Obj);
  }
  return clone(parsed.get(file)!);
}

/** The component schemas of a recorded document, shared: copy before changing any. */
export function recordedSchemas(file: string): Obj {
  if (!parsed.has(file)) recordedDocument(file);
  return parsed.get(file)!.components.schemas as Obj;
}

/** The operations of one recorded path, shared: copy before changing any. */
export function recordedPath(file: string, path: string): Obj {
  if (!parsed.has(file)) recordedDocument(file);
  return parsed.get(file)!.paths[path] as Obj;
}

/** `apis/batch/v1` → `apis__batch__v1.json`, `api/v1` → `api__v1.json`. */
export function recordedFileOf(groupVersionPath: string): string {
  return `${groupVersionPath.replace(/\//g, '__')}.json`;
}

const SCHEMA_REF = '#/components/schemas/';

/** Every schema name `value` refers to. */
function refsOf(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) return value.forEach((v) => refsOf(v, out));
  if (!isPlainObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_REF))
      out.add(v.slice(SCHEMA_REF.length));
    else refsOf(v, out);
  }
}

/**
 * Copies into `target` the schemas `value` refers to, and theirs, from `sources` (first match
 * wins): a document must hold every schema its paths and schemas name.
 */
export function addReferencedSchemas(value: unknown, target: Obj, sources: Obj[]): void {
  const pending = new Set<string>();
  refsOf(value, pending);
  while (pending.size) {
    const [name] = pending;
    pending.delete(name!);
    if (target[name!]) continue;
    const schema = sources.map((s) => s[name!] as Obj | undefined).find(Boolean);
    if (!schema) continue;
    target[name!] = clone(schema);
    const more = new Set<string>();
    refsOf(schema, more);
    for (const m of more) if (!target[m]) pending.add(m);
  }
}

/**
 * Replaces the template's names in a JSON value (paths, operation ids, descriptions, refs), in
 * order; a replacement is never itself replaced again.
 */
export function substitute<T>(value: T, replacements: [RegExp | string, string][]): T {
  let text = JSON.stringify(value);
  // Each match becomes a mark first (a character JSON text never holds raw), then its replacement.
  const MARK = '\u0001';
  replacements.forEach(([from], i) => {
    const mark = `${MARK}${i}${MARK}`;
    text = typeof from === 'string' ? text.split(from).join(mark) : text.replace(from, mark);
  });
  text = text
    .split(MARK)
    .map((part, i) => (i % 2 === 1 ? replacements[Number(part)]![1] : part))
    .join('');
  return JSON.parse(text) as T;
}

/** `example.crondeck.dev` → `ExampleCrondeckDev` (operation ids), `v1alpha1` → `V1alpha1`. */
export function camel(s: string): string {
  return s
    .split(/[.-]/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}
