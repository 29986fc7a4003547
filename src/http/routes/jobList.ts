import type { Response } from 'express';
import { z } from 'zod';
import { singleQueryValue } from '../../httpKit/queryParams';
import { MAX_PATH_ID, parseOrThrow } from '../../httpKit/validate';

const MAX_JOBS_LIMIT = 1000;
const DEFAULT_JOBS_LIMIT = 100;

const LIMIT_MESSAGE = `must be an integer from 1 to ${MAX_JOBS_LIMIT}`;
const AFTER_MESSAGE = `must be a job id: an integer from 0 to ${MAX_PATH_ID}`;

/**
 * `GET /api/jobs`'s paging, an extension the spec's plain request never sees: `limit` (1–1000) and
 * `after` (the id of the last job of the previous page, 0 for the first), as the other lists spell
 * their limits. Pages follow the ids (a keyset): a job there all along is on exactly one page,
 * however many are created or deleted meanwhile.
 */
const jobListQuerySchema = z.object({
  limit: singleQueryValue(
    z
      .string({ error: LIMIT_MESSAGE })
      .regex(/^[0-9]+$/, { error: LIMIT_MESSAGE })
      .transform(Number)
      .refine((n) => n >= 1 && n <= MAX_JOBS_LIMIT, { error: LIMIT_MESSAGE })
      .optional(),
  ),
  after: singleQueryValue(
    z
      .string({ error: AFTER_MESSAGE })
      .regex(/^[0-9]+$/, { error: AFTER_MESSAGE })
      .transform(Number)
      .refine((n) => n <= MAX_PATH_ID, { error: AFTER_MESSAGE })
      .optional(),
  ),
});

/** A page of the list: the jobs after id `after`, at most `limit` of them, by id. */
interface JobListPage {
  after: number;
  limit: number;
}

/** The page a request asks for, or null for the whole list (neither `limit` nor `after`). */
export function jobListPageOf(query: unknown): JobListPage | null {
  const { limit, after } = parseOrThrow(jobListQuerySchema, query);
  if (limit === undefined && after === undefined) return null;
  return { after: after ?? 0, limit: limit ?? DEFAULT_JOBS_LIMIT };
}

/** The jobs of `page`, of a list in id order. */
export function pageOfJobs<View extends { id: number }>(views: readonly View[], page: JobListPage): View[] {
  const first = views.findIndex((view) => view.id > page.after);
  return first === -1 ? [] : views.slice(first, first + page.limit);
}

/**
 * A JSON answer written as `parts`, one after the other, with the headers `res.send` sets for a
 * JSON buffer. The parts are kept renderings: written as they are, never joined into a copy.
 */
export function sendJsonParts(res: Response, parts: readonly Buffer[]): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader(
    'Content-Length',
    parts.reduce((length, part) => length + part.length, 0),
  );
  for (const part of parts) res.write(part);
  res.end();
}
