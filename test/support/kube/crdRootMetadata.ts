import { fieldErr, type FieldError } from './errors';
import type { Obj } from './types';

const IMPLICIT =
  'must not specify anything other than name and generateName, but metadata is implicitly specified';
const NO_DEFAULT = 'must not be set in top-level metadata';

/**
 * The rule on a CRD schema's root `metadata` (17-crd-validation #2–#13, #17, #18, #47): it may be
 * `type: object` with properties `name` and `generateName` only (whatever they hold but a default);
 * anything else on it, even a description, is Forbidden. As the real server words it, the errors
 * name `spec.validation.openAPIV3Schema` when every version has the same schema (once), else
 * `spec.versions[i].schema.openAPIV3Schema`.
 */
export function rootMetadataErrors(versions: Obj[]): FieldError[] {
  const schemas = versions.map((version) => version.schema?.openAPIV3Schema as Obj | undefined);
  const shared = schemas.every((schema) => JSON.stringify(schema) === JSON.stringify(schemas[0]));
  if (shared) return metadataErrors(schemas[0]?.properties?.metadata, 'spec.validation.openAPIV3Schema');
  return schemas.flatMap((schema, i) =>
    metadataErrors(schema?.properties?.metadata, `spec.versions[${i}].schema.openAPIV3Schema`),
  );
}

function metadataErrors(metadata: Obj | undefined, schemaPath: string): FieldError[] {
  if (metadata === undefined) return [];
  const path = `${schemaPath}.properties[metadata]`;
  const errs: FieldError[] = [];
  if (metadata.type !== 'object')
    errs.push(fieldErr.invalid(`${path}.type`, metadata.type ?? '', 'must be object'));
  if (metadata.default !== undefined) errs.push(fieldErr.forbidden(`${path}.default`, NO_DEFAULT));
  const properties: Obj = metadata.properties ?? {};
  for (const [name, child] of Object.entries(properties) as [string, Obj][]) {
    if (child?.default !== undefined)
      errs.push(fieldErr.forbidden(`${path}.properties[${name}].default`, NO_DEFAULT));
  }
  const otherKeys = Object.keys(metadata).some((key) => !['type', 'default', 'properties'].includes(key));
  const otherFields = Object.keys(properties).some((name) => !['name', 'generateName'].includes(name));
  if (otherKeys || otherFields) errs.push(fieldErr.forbidden(path, IMPLICIT));
  return errs;
}
