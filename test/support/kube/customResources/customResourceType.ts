import { storageVersionHash } from '../builtins/common';
import type { ResourceType } from '../resources';
import { applyDefaults, prune, validateSchema, type Schema } from '../schema';
import type { Obj } from '../types';

/** A served custom resource kind built from one CRD version. */
export function customResourceType(crd: Obj, version: Obj): ResourceType {
  const spec = crd.spec;
  const names = spec.names;
  const schema = (version.schema?.openAPIV3Schema ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  }) as Schema;
  const subresources = Object.keys(version.subresources ?? {});
  return {
    group: spec.group,
    version: version.name,
    resource: names.plural,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    singular: names.singular ?? names.kind.toLowerCase(),
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames,
    categories: names.categories,
    subresources,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    custom: true,
    generation: true,
    storageVersionHash: storageVersionHash(spec.group, version.name, names.kind),
    prune(obj) {
      const out: string[] = [];
      prune(obj, schema, '', out, true);
      return out;
    },
    defaults(obj) {
      applyDefaults(obj, schema);
    },
    validate(obj) {
      const { metadata: _m, ...rest } = obj;
      void _m;
      return validateSchema(
        rest,
        { ...schema, properties: { ...schema.properties, metadata: { type: 'object' } } },
        '',
      );
    },
  };
}
