/** additionalPrinterColumns: a known type and format, a simple JSONPath starting with `.` (17 #122–#129). */
import { fieldErr, type FieldError } from '../errors';
import type { Obj } from '../types';
import { simpleJsonPathErrors } from './simpleJsonPath';

const TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

export function validatePrinterColumn(col: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(fieldErr.required(`${path}.name`));
  if (!col.type) errs.push(fieldErr.required(`${path}.type`, `must be one of ${TYPES.join(',')}`));
  else if (!TYPES.includes(col.type))
    errs.push(fieldErr.invalid(`${path}.type`, col.type, `must be one of ${TYPES.join(',')}`));
  if (col.format && !FORMATS.includes(col.format)) {
    errs.push(fieldErr.invalid(`${path}.format`, col.format, `must be one of ${FORMATS.join(',')}`));
  }
  if (!col.jsonPath) errs.push(fieldErr.required(`${path}.JSONPath`));
  else errs.push(...simpleJsonPathErrors(col.jsonPath, `${path}.JSONPath`));
  return errs;
}
