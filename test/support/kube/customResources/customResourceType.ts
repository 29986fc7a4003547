import { storageVersionHash } from '../builtins/common';
import type { ResourceType } from '../resources';
import type { Schema } from '../schema';
import { clone, type Obj } from '../types';
import type { ScalePaths } from './scalePaths';
import { validateCreate, validateStatusUpdate, validateUpdate, type CustomResourceRules } from './strategy';
import { applyDefaults, coerce } from './structural';

/** A served custom resource kind built from one CRD version: the apiextensions server's codec and strategy. */
export function customResourceType(crd: Obj, version: Obj): ResourceType {
  const spec = crd.spec;
  const names = spec.names;
  const schema = (version.schema?.openAPIV3Schema ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  }) as Schema;
  const subresources = Object.keys(version.subresources ?? {});
  const scale = version.subresources?.scale as ScalePaths | undefined;
  const rules: CustomResourceRules = { schema, namespaced: spec.scope === 'Namespaced', scale };
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
    scale,
    prune: (obj) => coerce(obj, schema),
    defaults(obj, ctx) {
      // The decoder defaults before the strategy drops (create) or restores (update) a status the
      // status subresource owns: a `status` default never reaches a main-resource write.
      const statusOwned = subresources.includes('status') && ctx.operation !== 'status';
      const hadStatus = 'status' in obj;
      applyDefaults(obj, schema);
      if (statusOwned && !hadStatus) delete obj.status;
    },
    validate(obj, ctx) {
      const warnings = ctx.warnings ?? [];
      if (ctx.operation === 'create') return validateCreate(obj, rules, warnings);
      if (ctx.operation === 'status') return validateStatusUpdate(obj, ctx.old!, rules, warnings);
      return validateUpdate(obj, ctx.old!, rules, warnings);
    },
    // Reading from storage defaults with the current schema: a default added later shows on GET
    // with the same resourceVersion (18 #97, #98).
    fromStored(obj) {
      const out = clone(obj);
      applyDefaults(out, schema);
      return out;
    },
  };
}
