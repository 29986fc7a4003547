import { Router } from 'express';
import type { Pool } from 'pg';
import { z } from 'zod';
import { type Execution, FINAL_STATUSES } from '../../domain/execution';
import { notFound } from '../../domain/errors';
import { findExecution, listExecutions } from '../../store/executions';
import { readListVersion } from '../../store/listVersions';
import { VersionedRenders } from '../../store/versionedRenders';
import { singleQueryValue } from '../../httpKit/queryParams';
import { parseOrThrow, parsePathId, pathIdSchema } from '../../httpKit/validate';

const MAX_EXECUTIONS_LIMIT = 1000;

/** Attempts in progress are listed too, as `running`, until they finish. */
const LISTED_STATUSES = [...FINAL_STATUSES, 'running'] as const;

const listQuerySchema = z.object({
  jobId: singleQueryValue(pathIdSchema.optional()),
  status: singleQueryValue(
    z.enum(LISTED_STATUSES, { error: `must be one of ${LISTED_STATUSES.join(', ')}` }).optional(),
  ),
  limit: singleQueryValue(
    z
      .string({ error: 'must be a positive integer' })
      .regex(/^[0-9]+$/, { error: 'must be a positive integer' })
      .transform(Number)
      .refine((n) => n >= 1, { error: 'must be a positive integer' })
      .refine((n) => n <= MAX_EXECUTIONS_LIMIT, { error: `must be at most ${MAX_EXECUTIONS_LIMIT}` })
      .default(50),
  ),
});

function summaryToJson(execution: Execution) {
  return {
    id: execution.id,
    jobId: execution.jobId,
    jobName: execution.jobName,
    status: execution.status,
    startedAt: jsonValue(execution.startedAt),
    finishedAt: jsonValue(execution.finishedAt),
    durationMs: execution.durationMs,
    exitCode: execution.exitCode,
    attempt: execution.attempt,
  };
}

/**
 * What JSON.stringify writes for a Date, computed up front: Date#toJSON is the ISO string, or null
 * for an invalid date (spelled out here, it is twice as fast as calling toJSON), and
 * JSON.stringify is several times faster over plain strings than over Date objects.
 */
function jsonValue<T>(value: Date | T): string | null | T {
  if (!(value instanceof Date)) return value;
  return Number.isFinite(value.getTime()) ? value.toISOString() : null;
}

export function executionsRouter(pool: Pool): Router {
  const router = Router();
  // Rendered lists are reused while no finished execution was written or deleted (the list's
  // version); the bytes are those of res.json.
  const lists = new VersionedRenders<Buffer>(() => readListVersion(pool, 'executions'));

  // Newest first; items leave out stdout/stderr, which the single read has.
  router.get('/', async (req, res) => {
    const query = parseOrThrow(listQuerySchema, req.query);
    const key = `${query.jobId ?? ''}/${query.status ?? ''}/${query.limit}`;
    const body = await lists.get(key, async () => {
      const { executions, version } = await listExecutions(pool, query);
      return { value: Buffer.from(JSON.stringify(executions.map(summaryToJson))), version };
    });
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(body);
  });

  router.get('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    const execution = await findExecution(pool, id);
    // A running attempt answers too: finishedAt, durationMs and exitCode are null until it ends.
    if (!execution) throw notFound(`execution ${id} not found`);
    res.json({ ...summaryToJson(execution), stdout: execution.stdout, stderr: execution.stderr });
  });

  return router;
}
