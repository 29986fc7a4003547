/**
 * spec of a CRD in the server's order (validateCustomResourceDefinitionSpec): group, scope, schemas
 * present, each version (name, deprecation, its own schema, subresources and columns), version
 * counts, names, then the shared schema, subresources and columns, then conversion.
 */
import { fieldErr, notEmulated, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';
import { validateConversion } from './conversion';
import { dns1035Errors, subdomainErrors } from './dnsNames';
import { goVersions } from './goSyntax';
import { subresourcesOf, type InternalSpec } from './internalSpec';
import { validateNames } from './names';
import { validatePrinterColumn } from './printerColumns';
import { validateCustomResourceValidation } from './schema/customResourceValidation';
import { validateSubresources } from './subresources';
import { deprecationWarningErrors } from './versions';

/** Versions whose schema an update leaves unchanged (their rules keep any cost they had). */
export type UnchangedSchemas = Set<string>;

function groupErrors(group: string): FieldError[] {
  if (!group) return [fieldErr.required('spec.group')];
  const problems = subdomainErrors(group);
  if (problems.length) return [fieldErr.invalid('spec.group', group, problems.join(','))];
  if (group.split('.').length < 2)
    return [fieldErr.invalid('spec.group', group, 'should be a domain with at least one dot')];
  return [];
}

function scopeErrors(scope: string): FieldError[] {
  if (!scope) return [fieldErr.required('spec.scope')];
  return ['Cluster', 'Namespaced'].includes(scope)
    ? []
    : [fieldErr.notSupported('spec.scope', scope, ['Cluster', 'Namespaced'])];
}

const hasStatus = (subresources: Obj | undefined) => subresources?.status !== undefined;

function schemaHasDefault(s: unknown): boolean {
  if (!isPlainObject(s)) return false;
  if (s.default !== undefined) return true;
  return [
    s.items,
    s.not,
    s.additionalProperties,
    ...Object.values((s.properties ?? {}) as Obj),
    ...(s.allOf ?? []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
  ].some(schemaHasDefault);
}

function hasDefaults(spec: InternalSpec): boolean {
  return [spec.validation, ...spec.versions.map((v) => v.schema)].some((v) =>
    schemaHasDefault(v?.openAPIV3Schema),
  );
}

export function validateSpec(spec: InternalSpec, unchanged: UnchangedSchemas): FieldError[] {
  const errs: FieldError[] = [...groupErrors(spec.group), ...scopeErrors(spec.scope)];
  if (!spec.validation?.openAPIV3Schema) {
    spec.versions.forEach((v, i) => {
      if (!v.schema?.openAPIV3Schema)
        errs.push(fieldErr.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    });
  }
  if (spec.preserveUnknownFields && hasDefaults(spec)) {
    errs.push(
      fieldErr.invalidRaw(
        'spec.preserveUnknownFields',
        'true',
        'must be false in order to use defaults in the schema',
      ),
    );
  }
  let storageCount = 0;
  const names = new Set<string>();
  let unique = true;
  spec.versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (v.storage) storageCount++;
    if (names.has(v.name)) unique = false;
    names.add(v.name);
    const nameProblems = dns1035Errors(v.name ?? '');
    if (nameProblems.length) errs.push(fieldErr.invalid(`${path}.name`, v.name, nameProblems.join(',')));
    errs.push(...deprecationWarningErrors(v, path));
    errs.push(
      ...validateCustomResourceValidation(v.schema, `${path}.schema`, {
        statusEnabled: hasStatus(subresourcesOf(spec, v)),
        suppressPerExpressionCost: unchanged.has(v.name),
      }),
    );
    errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
    (v.additionalPrinterColumns ?? []).forEach((c, j) =>
      errs.push(...validatePrinterColumn(c, `${path}.additionalPrinterColumns[${j}]`)),
    );
    if (v.selectableFields?.length) throw notEmulated('selectableFields of a CRD version');
  });
  if (!unique)
    errs.push(
      fieldErr.invalidRaw('spec.versions', goVersions(spec.versions), 'must contain unique version names'),
    );
  if (storageCount !== 1) {
    errs.push(
      fieldErr.invalidRaw(
        'spec.versions',
        goVersions(spec.versions),
        'must have exactly one version marked as storage version',
      ),
    );
  }
  if (spec.version) {
    const problems = dns1035Errors(spec.version);
    if (problems.length) errs.push(fieldErr.invalid('spec.version', spec.version, problems.join(',')));
  }
  for (const name of ['plural', 'singular', 'kind', 'listKind']) {
    if (!spec.names[name]) errs.push(fieldErr.required(`spec.names.${name}`));
  }
  errs.push(...validateNames(spec.names, 'spec.names'));
  const anyStatus = hasStatus(spec.subresources) || spec.versions.some((v) => hasStatus(v.subresources));
  errs.push(
    ...validateCustomResourceValidation(spec.validation, 'spec.validation', {
      statusEnabled: anyStatus,
      suppressPerExpressionCost: spec.version !== undefined && unchanged.has(spec.version),
    }),
  );
  errs.push(...validateSubresources(spec.subresources, 'spec.subresources'));
  (spec.additionalPrinterColumns ?? []).forEach((c, j) =>
    errs.push(...validatePrinterColumn(c, `spec.additionalPrinterColumns[${j}]`)),
  );
  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    errs.push(
      fieldErr.invalid(
        'spec.conversion.strategy',
        spec.conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  }
  errs.push(...validateConversion(spec.conversion, 'spec.conversion'));
  return errs;
}
