import { z } from 'zod';
import { textSchema } from '../../domain/text';
import { badRequest } from '../../httpKit/httpError';

/** Largest value of a Postgres `integer`: ids above it cannot exist and must not reach SQL. */
export const MAX_INTEGER_ID = 2147483647;

/** Whether `id` can be the id of a stored row: an integer from 1 to the column's maximum. */
export function isStoredId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= MAX_INTEGER_ID;
}

/**
 * Parses `input` with `schema`, or throws a 400 for the first issue. Messages that the spec fixes
 * word for word ("identity_id is required") are raised with `reject` and reported verbatim; every
 * other message is prefixed with the field it concerns, e.g. `subject: must be a string or null`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw badRequest('invalid input');
  const verbatim = issue.code === 'custom' && (issue.params as { verbatim?: boolean } | undefined)?.verbatim;
  const path = issue.path.map(String).join('.');
  throw badRequest(verbatim || !path ? issue.message : `${path}: ${issue.message}`);
}

/** Adds an issue whose message is reported exactly as written (see `parseInput`). */
export function reject(ctx: z.RefinementCtx, message: string): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message, params: { verbatim: true } });
  return z.NEVER;
}

/** An optional text field that may be null (no NUL: see textSchema). */
export const nullableText = textSchema('must be a string or null').nullable().optional();

/** A nullable integer id of another row (not checked for existence). */
export const nullableId = z
  .number({ error: 'must be a positive integer or null' })
  .int({ error: 'must be a positive integer or null' })
  .min(1, { error: 'must be a positive integer or null' })
  .max(MAX_INTEGER_ID, { error: `must be at most ${MAX_INTEGER_ID}` })
  .nullable()
  .optional();

/**
 * A request body: an absent body (no Content-Type) reads as `{}`, so "required" messages apply. A
 * JSON `null` is a body, and not an object.
 */
export const bodyOf = (body: unknown): unknown => (body === undefined ? {} : body);

/** The object schema of a JSON body, with the message for a body that is not an object. */
export function jsonBody<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.object(shape, { error: 'request body must be a JSON object' });
}
