import { modelKindsDocument } from '../../openapi/modelKinds';
import { clone, isPlainObject, type Obj } from '../types';
import { addReferencedSchemas, camel, recordedDocument, recordedSchemas, substitute } from './templates';

/**
 * The OpenAPI v3 document of a built-in group version the recording lacks (apps/v1,
 * networking.k8s.io/v1, policy/v1). Paths come from the recorded batch/v1 document's Jobs, renamed
 * (every built-in resource gets the same operations); schemas from kubernetes-models' declarations
 * of the outer types (test/support/openapi/modelKinds.ts), built on the recorded core schemas.
 */

const TEMPLATE_FILE = 'apis__batch__v1.json';

/** One served built-in kind. */
export interface ServedBuiltinKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  status: boolean;
}

/** The Go package of a group: `networking.k8s.io` → `networking`, `apps` → `apps`. */
function packageOf(group: string): string {
  return group.split('.')[0]!;
}

/** The group as operation ids spell it: `networking.k8s.io` → `Networking`, `rbac.authorization.k8s.io` → `RbacAuthorization`. */
function groupCamel(group: string): string {
  return camel(group.replace(/\.k8s\.io$/, ''));
}

function tagOf(group: string, version: string): string {
  const g = groupCamel(group);
  return `${g[0]!.toLowerCase()}${g.slice(1)}_${version}`;
}

function schemaPrefix(group: string, version: string): string {
  return `io.k8s.api.${packageOf(group)}.${version}.`;
}

/** Renames the template's Job (batch/v1) to `k`. */
function renamedFromJobs(k: ServedBuiltinKind): [RegExp | string, string][] {
  const prefix = schemaPrefix(k.group, k.version);
  return [
    ['io.k8s.api.batch.v1.JobList', `${prefix}${k.kind}List`],
    ['io.k8s.api.batch.v1.Job', `${prefix}${k.kind}`],
    ['/apis/batch/v1', `/apis/${k.group}/${k.version}`],
    ['BatchV1', `${groupCamel(k.group)}${camel(k.version)}`],
    ['batch_v1', tagOf(k.group, k.version)],
    ['"group":"batch"', `"group":${JSON.stringify(k.group)}`],
    ['"version":"v1"', `"version":${JSON.stringify(k.version)}`],
    ['NamespacedJob', `Namespaced${k.kind}`],
    ['JobListForAllNamespaces', `${k.kind}ListForAllNamespaces`],
    ['JobForAllNamespaces', `${k.kind}ForAllNamespaces`],
    ['JobList', `${k.kind}List`],
    [/\bJob\b/g, k.kind],
    ['/jobs', `/${k.plural}`],
    [/\bjobs\b/g, k.plural],
  ];
}

/** The paths of one kind, from the template's Jobs. */
export function kindPaths(k: ServedBuiltinKind, templatePaths: Obj): Obj {
  const jobs = Object.fromEntries(
    Object.entries(templatePaths).filter(
      ([p]) => /\/jobs(\/|$)/.test(p) && (k.status || !p.endsWith('/status')),
    ),
  );
  const paths = substitute(jobs, renamedFromJobs(k));
  if (k.namespaced) return paths;
  // Cluster-scoped: the namespaced paths without the namespace; no list across namespaces.
  const out: Obj = {};
  for (const [p, item] of Object.entries(paths)) {
    if (!p.includes('/namespaces/{namespace}/')) continue;
    const renamed = substitute(item, [['Namespaced', '']]) as Obj;
    renamed.parameters = ((renamed.parameters ?? []) as Obj[]).filter((x) => x.name !== 'namespace');
    out[p.replace('/namespaces/{namespace}', '')] = renamed;
  }
  return out;
}

/** Lists whose merge strategy the declarations do not carry (status conditions merge by type). */
const CONDITION_LISTS = {
  'x-kubernetes-list-map-keys': ['type'],
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-patch-merge-key': 'type',
  'x-kubernetes-patch-strategy': 'merge',
};

/** The declarations type numbers as `number`; the API's are integers (counts, ports, seconds). */
function typed(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(typed);
  if (!isPlainObject(schema)) return;
  if (schema.type === 'number') schema.type = 'integer';
  if (schema.enum && !schema.type) schema.type = 'string';
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'conditions' && isPlainObject(v) && v.type === 'array') Object.assign(v, CONDITION_LISTS);
    typed(v);
  }
}

/** The model kinds' schemas of one group version, named as the API server names them. */
function modelSchemas(group: string, version: string, kinds: ServedBuiltinKind[], standard: Obj): Obj {
  const models = modelKindsDocument((name) => `#/components/schemas/${name}`);
  const modelPrefix = `models.kubernetes-models.${group}.${version}.`;
  const renamed = substitute(models.schemas, [[modelPrefix, schemaPrefix(group, version)]]) as Obj;
  const out: Obj = {};
  for (const [name, schema] of Object.entries(renamed)) {
    if (name.startsWith(schemaPrefix(group, version))) out[name] = schema;
  }
  typed(out);
  for (const k of kinds) {
    const root = out[`${schemaPrefix(group, version)}${k.kind}`] as Obj | undefined;
    if (!root) continue;
    root.properties = {
      ...(root.properties as Obj),
      apiVersion: clone(standard.apiVersion),
      kind: clone(standard.kind),
      metadata: clone(standard.metadata),
    };
    const required = ((root.required ?? []) as string[]).filter((r) => r !== 'apiVersion' && r !== 'kind');
    if (required.length) root.required = required;
    else delete root.required;
    root['x-kubernetes-group-version-kind'] = [{ group, kind: k.kind, version }];
  }
  return out;
}

/** The document of a built-in group version the recording lacks. */
export function builtinGroupVersionDocument(group: string, version: string, kinds: ServedBuiltinKind[]): Obj {
  const template = recordedDocument(TEMPLATE_FILE);
  const templateSchemas = template.components.schemas as Obj;
  const root = substitute(
    { [`/apis/batch/v1/`]: template.paths['/apis/batch/v1/'] },
    renamedFromJobs({ group, version, kind: '', plural: '', namespaced: true, status: false }),
  );
  const doc: Obj = {
    openapi: template.openapi,
    info: template.info,
    paths: root,
    components: { schemas: {}, securitySchemes: template.components.securitySchemes },
  };
  const schemas = doc.components.schemas as Obj;
  const job = templateSchemas['io.k8s.api.batch.v1.Job'] as Obj;
  Object.assign(schemas, modelSchemas(group, version, kinds, job.properties as Obj));
  for (const k of kinds) {
    Object.assign(doc.paths, kindPaths(k, template.paths as Obj));
    schemas[`${schemaPrefix(group, version)}${k.kind}List`] = substitute(
      templateSchemas['io.k8s.api.batch.v1.JobList'],
      renamedFromJobs(k),
    );
  }
  const sources = [templateSchemas, recordedSchemas('api__v1.json')];
  addReferencedSchemas(doc.paths, schemas, sources);
  addReferencedSchemas(Object.values(schemas), schemas, sources);
  doc.components.schemas = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((n) => [n, schemas[n]]),
  );
  return doc;
}
