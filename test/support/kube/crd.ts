import { builtin, storageVersionHash } from './builtins/common';
import { rootMetadataErrors } from './crdRootMetadata';
import { customResourceType } from './customResources/customResourceType';
import { fieldErr, type FieldError } from './errors';
import type { Registry, ResourceType } from './resources';
import type { Schema } from './schema';
import { clone, rfc3339, type Obj } from './types';
import { DNS1035_MSG, isDns1035 } from './validation';

/** The CustomResourceDefinition kind itself. */
export const customResourceDefinitions: ResourceType = builtin({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  // etcd still stores CRDs as v1beta1 (16 #9).
  storageVersionHash: storageVersionHash('apiextensions.k8s.io', 'v1beta1', 'CustomResourceDefinition'),
  subresources: ['status'],
  generation: true,
  defaults(obj, ctx) {
    obj.spec.conversion = obj.spec.conversion ?? { strategy: 'None' };
    if (ctx.operation === 'create') {
      // What the create answers: no conditions yet, names not accepted (01 #4).
      obj.status = {
        conditions: null,
        acceptedNames: { plural: '', kind: '' },
        storedVersions: (obj.spec.versions ?? []).filter((v: Obj) => v.storage).map((v: Obj) => v.name),
      };
    }
  },
  validate: validateCrd,
});

function schemaTypeErrors(schema: Schema, path: string, errs: FieldError[]): void {
  for (const [k, child] of Object.entries(schema.properties ?? {})) {
    const p = `${path}.properties[${k}]`;
    if (
      !child.type &&
      !child['x-kubernetes-int-or-string'] &&
      !child['x-kubernetes-preserve-unknown-fields']
    ) {
      errs.push(fieldErr.required(`${p}.type`, 'must not be empty for specified object fields'));
    }
    schemaTypeErrors(child, p, errs);
  }
  if (schema.items) schemaTypeErrors(schema.items, `${path}.items`, errs);
}

/** The structural checks whose messages 01 #3 shows (name, plural, untyped property, printer column). */
function validateCrd(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj.spec ?? {};
  const names = spec.names ?? {};
  if (obj.metadata.name !== `${names.plural}.${spec.group}`) {
    errs.push(
      fieldErr.invalid('metadata.name', obj.metadata.name, 'must be spec.names.plural+"."+spec.group'),
    );
  }
  for (const f of ['plural', 'singular']) {
    if (names[f] && !isDns1035(names[f]))
      errs.push(fieldErr.invalid(`spec.names.${f}`, names[f], DNS1035_MSG));
  }
  const versions: Obj[] = spec.versions ?? [];
  errs.push(...rootMetadataErrors(versions));
  // With one version the server validates its schema/columns as the top-level ones (01 #3 paths).
  const prefix = (v: number, field: string) =>
    versions.length === 1 ? `spec.${field}` : `spec.versions[${v}].${field}`;
  versions.forEach((v, i) => {
    const schema = v.schema?.openAPIV3Schema as Schema | undefined;
    if (schema)
      schemaTypeErrors(
        schema,
        versions.length === 1
          ? 'spec.validation.openAPIV3Schema'
          : `spec.versions[${i}].schema.openAPIV3Schema`,
        errs,
      );
    (v.additionalPrinterColumns ?? []).forEach((c: Obj, j: number) => {
      if (typeof c.jsonPath !== 'string' || !c.jsonPath.startsWith('.')) {
        errs.push(
          fieldErr.invalid(
            `${prefix(i, 'additionalPrinterColumns')}[${j}].JSONPath`,
            c.jsonPath,
            'must be a simple json path starting with .',
          ),
        );
      }
    });
  });
  return errs;
}

/**
 * The apiextensions controllers: NamesAccepted, then Established=False "Installing", then
 * Established=True, each a separate write (01 #5 shows two MODIFIED events), then the kind is served.
 */
export function establish(crd: Obj, now: Date, write: (crd: Obj) => Obj, registry: Registry): void {
  const names = crd.spec.names;
  const accepted: Obj = { plural: names.plural, singular: names.singular };
  if (names.shortNames) accepted.shortNames = names.shortNames;
  accepted.kind = names.kind;
  accepted.listKind = names.listKind;
  if (names.categories) accepted.categories = names.categories;
  const t = rfc3339(now);
  const namesAccepted = {
    type: 'NamesAccepted',
    status: 'True',
    lastTransitionTime: t,
    reason: 'NoConflicts',
    message: 'no conflicts found',
  };
  let current = clone(crd);
  current.status = {
    ...current.status,
    conditions: [
      namesAccepted,
      {
        type: 'Established',
        status: 'False',
        lastTransitionTime: t,
        reason: 'Installing',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames: accepted,
  };
  current = write(current);
  for (const v of current.spec.versions ?? []) if (v.served) registry.add(customResourceType(current, v));
  current.status.conditions = [
    namesAccepted,
    {
      type: 'Established',
      status: 'True',
      lastTransitionTime: t,
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    },
  ];
  write(current);
}

export function unregister(crd: Obj, registry: Registry): void {
  for (const v of crd.spec?.versions ?? []) registry.remove(crd.spec.group, v.name, crd.spec.names.plural);
}

/** An updated, established CRD serves its new schema from then on (18 #96: new default, lower maximum). */
export function reregister(crd: Obj, registry: Registry): void {
  const established = (crd.status?.conditions ?? []).some(
    (c: Obj) => c.type === 'Established' && c.status === 'True',
  );
  if (!established) return;
  for (const t of registry.all()) {
    if (t.custom && t.group === crd.spec.group && t.resource === crd.spec.names.plural) {
      registry.remove(t.group, t.version, t.resource);
    }
  }
  for (const v of crd.spec.versions ?? []) if (v.served) registry.add(customResourceType(crd, v));
}
