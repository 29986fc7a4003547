/** The scale subresource's paths: under .spec, under .status, a label selector under either (17 #116–#121). */
import { fieldErr, type FieldError } from '../errors';
import type { Obj } from '../types';
import { simpleJsonPathErrors } from './simpleJsonPath';

function scalePath(
  value: unknown,
  field: string,
  prefixes: string[],
  message: string,
  required: boolean,
): FieldError[] {
  if (typeof value !== 'string' || value === '') return required ? [fieldErr.required(field)] : [];
  const syntax = simpleJsonPathErrors(value, field);
  if (syntax.length) return syntax;
  return prefixes.some((p) => value.startsWith(p)) ? [] : [fieldErr.invalid(field, value, message)];
}

export function validateSubresources(subresources: Obj | undefined, path: string): FieldError[] {
  const scale = subresources?.scale as Obj | undefined;
  if (!scale) return [];
  return [
    ...scalePath(
      scale.specReplicasPath,
      `${path}.scale.specReplicasPath`,
      ['.spec.'],
      'should be a json path under .spec',
      true,
    ),
    ...scalePath(
      scale.statusReplicasPath,
      `${path}.scale.statusReplicasPath`,
      ['.status.'],
      'should be a json path under .status',
      true,
    ),
    ...scalePath(
      scale.labelSelectorPath,
      `${path}.scale.labelSelectorPath`,
      ['.spec.', '.status.'],
      'should be a json path under either .spec or .status',
      false,
    ),
  ];
}
