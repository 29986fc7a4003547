import { z } from 'zod';
import { textProblem, textSchema } from '../../domain/text';
import { countCodePoints } from '../../domain/codePoints';
import { jsonBody, nullableText, reject } from '../shared/validation';

/**
 * Names are unique through a btree index, whose entries are limited to about 2.7 kB: a bound on
 * the name keeps an overlong one a 400 rather than an index error.
 */
const MAX_LABEL_NAME_LENGTH = 200;

/** Trims, then checks a name that is present; `missing` is the message for an empty one. */
function checkName(value: string, ctx: z.RefinementCtx, missing: string): string {
  const name = value.trim();
  if (!name) return reject(ctx, missing);
  const problem = textProblem(name);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  if (countCodePoints(name) > MAX_LABEL_NAME_LENGTH) {
    ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_LABEL_NAME_LENGTH} characters` });
    return z.NEVER;
  }
  return name;
}

/** POST: a missing or falsy name (or one of spaces only) is "name is required". */
const nameOnCreate = z
  .unknown()
  .optional()
  .transform((value, ctx): string => {
    if (!value) return reject(ctx, 'name is required');
    if (typeof value !== 'string') {
      ctx.addIssue({ code: 'custom', message: 'must be a string' });
      return z.NEVER;
    }
    return checkName(value, ctx, 'name is required');
  });

const nameOnUpdate = z
  .string({ error: 'must be a non-empty string' })
  .transform((value, ctx) => checkName(value, ctx, 'name: must be a non-empty string'));

/** `source` says where a label came from; any non-empty string, `user` when omitted or null. */
const source = textSchema().trim().min(1, { error: 'must not be empty' }).nullable().optional();

export const labelCreateSchema = jsonBody({
  name: nameOnCreate,
  color: nullableText,
  icon: nullableText,
  source,
});
export type LabelCreate = z.output<typeof labelCreateSchema>;

/** PUT: only name, color and icon can change, and only those present do; other keys are dropped. */
export const labelUpdateSchema = jsonBody({
  name: nameOnUpdate.optional(),
  color: nullableText,
  icon: nullableText,
}).transform((fields, ctx) =>
  Object.keys(fields).length === 0 ? reject(ctx, 'No fields to update') : fields,
);
export type LabelUpdate = z.output<typeof labelUpdateSchema>;
