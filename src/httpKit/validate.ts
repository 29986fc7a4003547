import { z } from 'zod';
import { describeZodError } from '../domain/zodErrors';
import { badRequest } from './httpError';

/** Parses `input` with `schema`, or throws a 400 that names the offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw badRequest(describeZodError(result.error, prefix));
  return result.data;
}

/** The largest id a path may name: Postgres `integer`, the ids' type. */
export const MAX_PATH_ID = 2147483647;

/** A path id: a positive integer that fits Postgres `integer`/`bigint` ids. */
export const pathIdSchema = z
  .string()
  .regex(/^[0-9]+$/, { error: 'must be a positive integer' })
  .transform(Number)
  .refine((n) => n >= 1 && n <= MAX_PATH_ID, { error: 'must be a positive integer' });

/** Parses the path parameter `name` (e.g. `id`) as a positive integer id. */
export function parsePathId(params: Record<string, string | string[] | undefined>, name = 'id'): number {
  return parseOrThrow(pathIdSchema, params[name], name);
}
