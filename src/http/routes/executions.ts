import { Router } from 'express';
import type { Pool } from 'pg';
import { z } from 'zod';
import { type Execution, FINAL_STATUSES } from '../../domain/execution';
import { notFound } from '../../domain/errors';
import { findExecution, listExecutions } from '../../store/executions';
import { parseOrThrow, parsePathId, pathIdSchema } from '../validate';

export const MAX_EXECUTIONS_LIMIT = 1000;

const listQuerySchema = z.object({
  jobId: pathIdSchema.optional(),
  status: z.enum(FINAL_STATUSES, { error: `must be one of ${FINAL_STATUSES.join(', ')}` }).optional(),
  limit: z
    .string({ error: 'must be a positive integer' })
    .regex(/^[0-9]+$/, { error: 'must be a positive integer' })
    .transform(Number)
    .refine((n) => n >= 1, { error: 'must be a positive integer' })
    .refine((n) => n <= MAX_EXECUTIONS_LIMIT, { error: `must be at most ${MAX_EXECUTIONS_LIMIT}` })
    .default(50),
});

function summaryToJson(execution: Execution) {
  return {
    id: execution.id,
    jobId: execution.jobId,
    jobName: execution.jobName,
    status: execution.status,
    startedAt: execution.startedAt,
    finishedAt: execution.finishedAt,
    durationMs: execution.durationMs,
    exitCode: execution.exitCode,
    attempt: execution.attempt,
  };
}

export function executionsRouter(pool: Pool): Router {
  const router = Router();

  // Newest first; items leave out stdout/stderr, which the single read has.
  router.get('/', async (req, res) => {
    const query = parseOrThrow(listQuerySchema, req.query);
    res.json((await listExecutions(pool, query)).map(summaryToJson));
  });

  router.get('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    const execution = await findExecution(pool, id);
    if (!execution || execution.status === 'running') throw notFound(`execution ${id} not found`);
    res.json({ ...summaryToJson(execution), stdout: execution.stdout, stderr: execution.stderr });
  });

  return router;
}
