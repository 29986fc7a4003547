import { clone, isPlainObject, type Obj } from '../types';
import {
  addReferencedSchemas,
  camel,
  recordedDocument,
  recordedPath,
  recordedSchemas,
  substitute,
} from './templates';

/**
 * The OpenAPI v3 document of a CRD-served group version, as the apiextensions server builds it
 * from the CRDs' schemas. The recorded document of the example CRD (01 #4) is the template: its
 * paths and operations are the ones every custom resource gets, renamed.
 */

const TEMPLATE_FILE = 'apis__example.crondeck.dev__v1alpha1.json';
const T = {
  group: 'example.crondeck.dev',
  version: 'v1alpha1',
  kind: 'ScheduledJob',
  listKind: 'ScheduledJobList',
  plural: 'scheduledjobs',
};
const META_SCHEMAS = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const SCALE_TEMPLATE = '/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale';

/** One kind of a CRD as served at one version. */
export interface ServedCustomKind {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  namespaced: boolean;
  status: boolean;
  scale: boolean;
  /** The version's openAPIV3Schema. */
  schema: Obj | undefined;
  selectableFields?: Obj[];
}

/** The CRD's kinds served at `version` (every served version of every CRD of the group). */
export function servedCustomKinds(crd: Obj, version: string): ServedCustomKind | undefined {
  const v = (crd.spec?.versions as Obj[] | undefined)?.find((x) => x.name === version && x.served);
  if (!v) return undefined;
  const names = crd.spec.names as Obj;
  return {
    group: crd.spec.group,
    version,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    plural: names.plural,
    namespaced: crd.spec.scope !== 'Cluster',
    status: Boolean(v.subresources?.status),
    scale: Boolean(v.subresources?.scale),
    schema: v.schema?.openAPIV3Schema as Obj | undefined,
    selectableFields: v.selectableFields as Obj[] | undefined,
  };
}

/** `dev.crondeck.example.v1alpha1.ScheduledJob`: the group reversed, the version, the kind. */
function componentName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function renames(k: ServedCustomKind): [string, string][] {
  const groupCamel = camel(k.group);
  return [
    [componentName(T.group, T.version, T.listKind), componentName(k.group, k.version, k.listKind)],
    [componentName(T.group, T.version, T.kind), componentName(k.group, k.version, k.kind)],
    [`exampleCrondeckDev_${T.version}`, `${groupCamel[0]!.toLowerCase()}${groupCamel.slice(1)}_${k.version}`],
    [`ExampleCrondeckDev${camel(T.version)}`, `${groupCamel}${camel(k.version)}`],
    [`/apis/${T.group}/${T.version}/`, `/apis/${k.group}/${k.version}/`],
    [JSON.stringify(T.group), JSON.stringify(k.group)],
    [JSON.stringify(T.version), JSON.stringify(k.version)],
    [T.listKind, k.listKind],
    [T.kind, k.kind],
    [T.plural, k.plural],
  ];
}

/** A cluster-scoped kind's paths: the namespaced ones without the namespace (and no all-namespaces list). */
function clusterScoped(paths: Obj): Obj {
  const out: Obj = {};
  for (const [p, item] of Object.entries(paths)) {
    if (!p.includes('/namespaces/{namespace}/')) continue;
    const path = p.replace('/namespaces/{namespace}', '');
    const renamed = substitute(item, [['Namespaced', '']]) as Obj;
    renamed.parameters = (renamed.parameters as Obj[]).filter((x) => x.name !== 'namespace');
    out[path] = renamed;
  }
  return out;
}

/** The /scale operations: the core ReplicationController's, retargeted (autoscaling/v1 Scale). */
function scalePaths(k: ServedCustomKind): Obj {
  const template = recordedPath('api__v1.json', SCALE_TEMPLATE);
  const item = substitute(template, [
    ['CoreV1', camel(k.group) + camel(k.version)],
    ['core_v1', `${camel(k.group)[0]!.toLowerCase()}${camel(k.group).slice(1)}_${k.version}`],
    ['ReplicationController', k.kind],
  ]) as Obj;
  const patch = item.patch as Obj;
  delete (patch.requestBody as Obj).content['application/strategic-merge-patch+json'];
  return { [`/apis/${k.group}/${k.version}/namespaces/{namespace}/${k.plural}/{name}/scale`]: item };
}

/** The kind's schema as served: the CRD's, with the standard apiVersion, kind and metadata, and its GVK. */
function kindSchema(k: ServedCustomKind, template: Obj): Obj {
  const schema: Obj = clone(k.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  const standard = template.properties as Obj;
  schema.properties = {
    ...((schema.properties as Obj | undefined) ?? {}),
    apiVersion: clone(standard.apiVersion),
    kind: clone(standard.kind),
    metadata: clone(standard.metadata),
  };
  schema['x-kubernetes-group-version-kind'] = [{ group: k.group, kind: k.kind, version: k.version }];
  schema['x-kubernetes-selectable-fields'] = (k.selectableFields ?? []).map((f) =>
    isPlainObject(f) ? { fieldPath: f.jsonPath } : f,
  );
  return schema;
}

/** The document of one group version served by CRDs (`kinds` all share the group and version). */
export function customGroupVersionDocument(kinds: ServedCustomKind[]): Obj {
  const template = recordedDocument(TEMPLATE_FILE);
  const schemas = template.components.schemas as Obj;
  const doc: Obj = { openapi: template.openapi, info: template.info, paths: {}, components: { schemas: {} } };
  const out = doc.components.schemas as Obj;
  for (const k of kinds) {
    let paths = substitute(template.paths as Obj, renames(k));
    if (!k.status) {
      for (const p of Object.keys(paths)) if (p.endsWith('/status')) delete paths[p];
    }
    if (!k.namespaced) paths = clusterScoped(paths);
    if (k.scale) Object.assign(paths, k.namespaced ? scalePaths(k) : clusterScoped(scalePaths(k)));
    Object.assign(doc.paths, paths);
    const kindName = componentName(k.group, k.version, k.kind);
    const templateKind = schemas[componentName(T.group, T.version, T.kind)] as Obj;
    out[kindName] = kindSchema(k, templateKind);
    out[componentName(k.group, k.version, k.listKind)] = substitute(
      schemas[componentName(T.group, T.version, T.listKind)],
      renames(k),
    );
  }
  const sources = [schemas, recordedSchemas('api__v1.json')];
  addReferencedSchemas(doc.paths, out, sources);
  addReferencedSchemas(Object.values(out), out, sources);
  // Every group version's document carries the same meta schemas, referenced or not.
  for (const [name, schema] of Object.entries(schemas)) {
    if (name.startsWith(META_SCHEMAS) && !out[name]) out[name] = clone(schema);
  }
  doc.components.schemas = Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((n) => [n, out[n]]),
  );
  return doc;
}
