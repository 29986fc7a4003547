/**
 * A CustomResourceDefinition as kube-apiserver v1.32 validates it on create and update, in the
 * server's order so that the 422's causes come out as the real server lists them:
 * metadata.name, spec (internalSpec.ts explains the paths), acceptedNames, storedVersions,
 * the API-approval annotation, preserveUnknownFields.
 */
import { fieldErr, type FieldError } from '../errors';
import { deepEqual, type Obj } from '../types';
import { validateApiApproval } from './apiApproval';
import { subdomainErrors } from './dnsNames';
import { toInternalSpec, type InternalSpec } from './internalSpec';
import { validateNames } from './names';
import { validateSpec, type UnchangedSchemas } from './spec';
import { storedVersionsErrors } from './versions';

function nameErrors(crd: Obj): FieldError[] {
  const name = String(crd.metadata?.name ?? '');
  const problems = subdomainErrors(name);
  if (name !== `${crd.spec?.names?.plural}.${crd.spec?.group}`)
    problems.push('must be spec.names.plural+"."+spec.group');
  return problems.map((p) => fieldErr.invalid('metadata.name', name, p));
}

function schemaOf(spec: InternalSpec, version: string): Obj | undefined {
  const v = spec.versions.find((x) => x.name === version);
  return v?.schema ?? spec.validation;
}

/** Versions whose schema an update does not change. */
function unchangedSchemas(spec: InternalSpec, old: InternalSpec): UnchangedSchemas {
  return new Set(
    spec.versions
      .filter(
        (v) =>
          old.versions.some((o) => o.name === v.name) &&
          deepEqual(schemaOf(spec, v.name), schemaOf(old, v.name)),
      )
      .map((v) => v.name),
  );
}

function isEstablished(crd: Obj): boolean {
  return ((crd.status?.conditions ?? []) as Obj[]).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );
}

function immutableErrors(spec: InternalSpec, old: InternalSpec, established: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const immutable = (field: string, now: unknown, before: unknown) => {
    if (now !== before) errs.push(fieldErr.invalid(field, now, 'field is immutable'));
  };
  if (established) {
    immutable('spec.scope', spec.scope, old.scope);
    immutable('spec.names.kind', spec.names.kind, old.names.kind);
  }
  immutable('spec.group', spec.group, old.group);
  immutable('spec.names.plural', spec.names.plural, old.names.plural);
  return errs;
}

export function validateCustomResourceDefinition(crd: Obj, old?: Obj): FieldError[] {
  const spec = toInternalSpec(crd.spec ?? {});
  const oldSpec = old ? toInternalSpec(old.spec ?? {}) : undefined;
  const errs = old ? [] : nameErrors(crd);
  errs.push(...validateSpec(spec, oldSpec ? unchangedSchemas(spec, oldSpec) : new Set()));
  if (old && oldSpec) errs.push(...immutableErrors(spec, oldSpec, isEstablished(old)));
  errs.push(...validateNames(crd.status?.acceptedNames ?? {}, 'status.acceptedNames'));
  errs.push(...storedVersionsErrors(crd.status?.storedVersions, spec.versions));
  errs.push(...validateApiApproval(crd, old));
  if (crd.spec?.preserveUnknownFields === true && old?.spec?.preserveUnknownFields !== true) {
    errs.push(
      fieldErr.invalidRaw(
        'spec.preserveUnknownFields',
        'true',
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
  return errs;
}
