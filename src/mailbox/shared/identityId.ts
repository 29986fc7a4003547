import { z } from 'zod';
import { isStoredId, reject } from './validation';

const INVALID = 'Invalid identity_id: must be a positive integer';

/** `identity_id` in a JSON body: missing or falsy is "required"; otherwise a positive integer. */
export const identityIdInBody = z
  .unknown()
  .optional()
  .transform((value, ctx): number => {
    if (!value) return reject(ctx, 'identity_id is required');
    if (typeof value !== 'number' || !isStoredId(value)) {
      return reject(ctx, INVALID);
    }
    return value;
  });

/**
 * `identity_id` of `GET /drafts`, as the spec words it: a query value whose JavaScript `Number` is
 * finite and at least 1. A number that is no stored id (1.5, 2147483648) is valid and simply
 * names an identity without drafts (`listDrafts` answers it without a query).
 */
export const identityIdToList = z
  .unknown()
  .optional()
  .transform((value, ctx): number => {
    if (value === undefined || value === '') return reject(ctx, 'identity_id query parameter is required');
    const id = typeof value === 'string' ? Number(value.trim()) : NaN;
    if (!Number.isFinite(id) || id < 1) return reject(ctx, INVALID);
    return id;
  });

/**
 * `identity_id` in a query string that names the identity of a message to store: decimal digits
 * (surrounding spaces allowed), at least 1.
 */
export const identityIdInQuery = z
  .unknown()
  .optional()
  .transform((value, ctx): number => {
    if (value === undefined || value === '') return reject(ctx, 'identity_id query parameter is required');
    if (typeof value !== 'string' || !/^\s*[0-9]+\s*$/.test(value)) return reject(ctx, INVALID);
    const id = Number(value);
    if (!isStoredId(id)) return reject(ctx, INVALID);
    return id;
  });
