import { Router } from 'express';
import type { Pool } from 'pg';
import { z } from 'zod';
import { type Execution, FINAL_STATUSES } from '../../domain/execution';
import { notFound } from '../../domain/errors';
import type { ExecutionLists } from '../../caching/executionLists';
import { findExecution } from '../../store/executions';
import { singleQueryValue } from '../../httpKit/queryParams';
import { parseOrThrow, parsePathId, pathIdSchema } from '../../httpKit/validate';
import { freshnessAsked } from '../readFreshness';
import { listFilterOf, namespaceQueryParam } from '../listFilter';

const MAX_EXECUTIONS_LIMIT = 1000;

/**
 * The spec's four statuses, and `running` (an extension): attempts in progress are listed only to
 * a client that asks for them with `?status=running`, never in the default list.
 */
const LISTED_STATUSES = [...FINAL_STATUSES, 'running'] as const;

/** The list's query string, as Express's query parser (node:querystring) leaves it. */
export const executionListQuerySchema = z.object({
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
  // Only the runs of jobs of this namespace (docs/api.md); the front door leaves such lists to the app.
  namespace: namespaceQueryParam,
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
    // Extensions: why it ended so (OOMKilled, SIGKILL, Timeout...), null when there is nothing to say.
    reason: execution.reason?.code ?? null,
    reasonMessage: execution.reason?.message ?? null,
    // The slot its run is for (docs/slots.md): null for a run by hand.
    scheduledAt: jsonValue(execution.scheduledAt),
    trigger: execution.trigger,
    // Who started the run by hand (SERVICE_AUTH=kubernetes): null for the schedule's and when unknown.
    triggeredBy: execution.triggeredBy ?? null,
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

/**
 * A page of the list: newest first, finished executions unless `?status=running` asks for attempts
 * in progress; items leave out stdout/stderr, which the single read has. The bytes are those of
 * res.json.
 */
export function renderExecutionList(executions: Execution[]): Buffer {
  return Buffer.from(JSON.stringify(executions.map(summaryToJson)));
}

/**
 * `lists` keeps the rendered pages; the front door answers plain reads from the same pages. `home`
 * as for the jobs router.
 */
export function executionsRouter(pool: Pool, lists: ExecutionLists, home: string | null = null): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const { namespace: _asked, ...query } = parseOrThrow(executionListQuerySchema, req.query);
    const namespaces = listFilterOf(req, home);
    const body = await lists.get(
      namespaces ? { ...query, namespaces } : query,
      renderExecutionList,
      freshnessAsked(req),
    );
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(body);
  });

  router.get('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    const execution = await findExecution(pool, id);
    // An attempt in progress (its id comes from `job.running` or `?status=running`) answers too:
    // finishedAt, durationMs and exitCode are null until it ends.
    if (!execution) throw notFound(`execution ${id} not found`);
    res.json({ ...summaryToJson(execution), stdout: execution.stdout, stderr: execution.stderr });
  });

  return router;
}
