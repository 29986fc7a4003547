import { z } from 'zod';

const REPEATED_MESSAGE = 'may be given only once';

/**
 * A query parameter that takes one value: `?jobId=1&jobId=2` arrives as an array, which the value's
 * own schema would answer with validator text ("expected string, received array"). It is refused
 * here with a message that says what is wrong. Absent stays absent, so `.optional()` and
 * `.default()` on `schema` apply.
 */
export function singleQueryValue<S extends z.ZodType>(schema: S) {
  return z.preprocess((value, ctx) => {
    if (!Array.isArray(value)) return value;
    ctx.addIssue({ code: 'custom', message: REPEATED_MESSAGE });
    return z.NEVER;
  }, schema);
}
