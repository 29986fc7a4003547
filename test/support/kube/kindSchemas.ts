import { readdirSync } from 'node:fs';
import { modelKindsDocument } from '../openapi/modelKinds';
import { OPENAPI_DIR, openApiSchemas } from './openapi';
import type { Obj } from './types';

/**
 * The OpenAPI schemas of built-in kinds, for the server logic that is driven by them (strategic
 * merge patch reads x-kubernetes-patch-strategy and -merge-key). The real server's recorded
 * documents come first; the kinds they lack (apps/v1, policy/v1, networking.k8s.io/v1) come from
 * kubernetes-models, whose embedded core types refer back to the recorded core schemas.
 * Schema names are globally unique, so every document shares one name space.
 */

const SCHEMA_REF = '#/components/schemas/';

interface Index {
  byName: Map<string, Obj>;
  byKind: Map<string, string>;
}

let index: Index | undefined;

function load(): Index {
  if (index) return index;
  const byName = new Map<string, Obj>();
  const byKind = new Map<string, string>();
  const files = readdirSync(OPENAPI_DIR).filter((f) => /^apis?__.*\.json$/.test(f));
  for (const file of files) {
    for (const [name, schema] of Object.entries(openApiSchemas(file) ?? {})) {
      byName.set(name, schema);
      for (const gvk of (schema['x-kubernetes-group-version-kind'] ?? []) as Obj[]) {
        byKind.set(`${gvk.group ? `${gvk.group}/` : ''}${gvk.version}/${gvk.kind}`, name);
      }
    }
  }
  const models = modelKindsDocument((name) => `${SCHEMA_REF}${name}`);
  for (const [name, schema] of Object.entries(models.schemas)) byName.set(name, schema);
  for (const [gvk, name] of models.kinds) if (!byKind.has(gvk)) byKind.set(gvk, name);
  index = { byName, byKind };
  return index;
}

/** Follows `$ref` (also the `allOf: [{$ref}]` form) to the schema it names. */
export function resolveSchema(schema: Obj | undefined): Obj | undefined {
  let current = schema;
  for (let hops = 0; current && hops < 8; hops++) {
    const ref = (current.$ref ?? current.allOf?.[0]?.$ref) as string | undefined;
    if (!ref) return current;
    current = load().byName.get(ref.slice(ref.indexOf(SCHEMA_REF) + SCHEMA_REF.length));
  }
  return current;
}

/** The root schema of `apiVersion` + `kind`, or undefined when no document describes it. */
export function kindSchema(apiVersion: string, kind: string): Obj | undefined {
  const name = load().byKind.get(`${apiVersion}/${kind}`);
  return name ? resolveSchema(load().byName.get(name)) : undefined;
}
