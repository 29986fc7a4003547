/**
 * The server's check of printer-column and scale paths: only that they start with `.`, so
 * `.spec.size[` passes (17 #124) and `{.spec.size}` does not (17 #125).
 */
import { fieldErr, type FieldError } from '../errors';

export function simpleJsonPathErrors(path: string, field: string): FieldError[] {
  if (path.length === 0) return [fieldErr.invalid(field, path, 'must not be empty')];
  if (path[0] !== '.') return [fieldErr.invalid(field, path, 'must be a simple json path starting with .')];
  return [];
}
