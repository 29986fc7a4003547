import { z } from 'zod';
import { singleQueryValue } from '../../httpKit/queryParams';
import { MAX_INTEGER_ID } from './validation';

const DEFAULT_PAGE_LIMIT = 50;
const MAX_PAGE_LIMIT = 500;

const digits = /^[0-9]+$/;

/** `limit` of a message list: an integer from 1 to 500, 50 when absent. */
const limit = z
  .unknown()
  .optional()
  .transform((value, ctx): number => {
    if (value === undefined) return DEFAULT_PAGE_LIMIT;
    const n = typeof value === 'string' && digits.test(value) ? Number(value) : NaN;
    if (!(n >= 1 && n <= MAX_PAGE_LIMIT)) {
      ctx.addIssue({ code: 'custom', message: `must be an integer from 1 to ${MAX_PAGE_LIMIT}` });
      return z.NEVER;
    }
    return n;
  });

/** `offset` of a message list: a non-negative integer, 0 when absent. */
const offset = z
  .unknown()
  .optional()
  .transform((value, ctx): number => {
    if (value === undefined) return 0;
    if (typeof value !== 'string' || !digits.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a non-negative integer' });
      return z.NEVER;
    }
    const n = Number(value);
    if (n > MAX_INTEGER_ID) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_INTEGER_ID}` });
      return z.NEVER;
    }
    return n;
  });

export const paginationShape = { limit: singleQueryValue(limit), offset: singleQueryValue(offset) };

export interface Page {
  limit: number;
  offset: number;
}
