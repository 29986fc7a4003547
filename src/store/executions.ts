import type { Pool, PoolClient } from 'pg';
import type { AttemptResult, Execution, ExecutionStatus, FinalStatus } from '../domain/execution';
import { storableText } from '../domain/text';
import type { Queryable } from './database';
import { splitListVersion, withListVersion } from './listVersions';

interface ExecutionRow {
  id: string;
  job_id: number;
  job_name: string;
  status: ExecutionStatus;
  started_at: Date;
  finished_at: Date | null;
  duration_ms: number | null;
  exit_code: number | null;
  stdout?: string;
  stderr?: string;
  attempt: number;
}

const SUMMARY_COLUMNS =
  'id, job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, attempt';
const FULL_COLUMNS = `${SUMMARY_COLUMNS}, stdout, stderr`;

function toExecution(row: ExecutionRow): Execution {
  return {
    id: Number(row.id),
    jobId: row.job_id,
    jobName: row.job_name,
    status: row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms,
    exitCode: row.exit_code,
    stdout: row.stdout ?? '',
    stderr: row.stderr ?? '',
    attempt: row.attempt,
  };
}

/** Opens the row of an attempt that starts now; it stays `running` until finished. */
export async function startAttempt(
  db: Queryable,
  attempt: { jobId: number; jobName: string; startedAt: Date; attempt: number },
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO executions (job_id, job_name, status, started_at, attempt) VALUES ($1, $2, 'running', $3, $4) RETURNING id`,
    [attempt.jobId, attempt.jobName, attempt.startedAt, attempt.attempt],
  );
  return Number(rows[0]!.id);
}

/**
 * Writes the outcome of a running attempt. Returns null when the row is not running any more
 * (already finished, or closed after a crash), so an outcome is never recorded or counted twice.
 * Output is whatever the command printed: it is made storable here (NUL shown as "␀"), where every
 * runtime's results enter the database.
 */
export async function finishAttempt(
  db: Queryable,
  id: number,
  result: AttemptResult,
): Promise<Execution | null> {
  const { rows } = await db.query<ExecutionRow>(
    `UPDATE executions SET status = $2, finished_at = $3, duration_ms = $4, exit_code = $5, stdout = $6, stderr = $7
     WHERE id = $1 AND status = 'running' RETURNING ${FULL_COLUMNS}`,
    [
      id,
      result.status,
      result.finishedAt,
      durationMs(result),
      result.exitCode,
      storableText(result.stdout),
      storableText(result.stderr),
    ],
  );
  return rows[0] ? toExecution(rows[0]) : null;
}

/**
 * Inserts an execution that is already finished (a skipped fire time, or a pod's report).
 * `reportKey` makes the insert idempotent: a second report with the same key inserts nothing and
 * returns null.
 */
export async function insertFinishedExecution(
  db: Queryable,
  execution: AttemptResult & { jobId: number; jobName: string; attempt: number; reportKey?: string },
): Promise<Execution | null> {
  const { rows } = await db.query<ExecutionRow>(
    `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, stdout, stderr, attempt, report_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (report_key) DO NOTHING RETURNING ${FULL_COLUMNS}`,
    [
      execution.jobId,
      execution.jobName,
      execution.status,
      execution.startedAt,
      execution.finishedAt,
      durationMs(execution),
      execution.exitCode,
      storableText(execution.stdout),
      storableText(execution.stderr),
      execution.attempt,
      execution.reportKey ?? null,
    ],
  );
  return rows[0] ? toExecution(rows[0]) : null;
}

/**
 * Bumps the durable counter behind `service_executions_total`, and the job's last-run columns, in
 * one statement (one round trip of the recording transaction). The counter's slot is this
 * connection's (migration 009), so concurrent recordings do not wait on one row.
 */
export async function countFinishedExecution(db: Queryable, execution: Execution): Promise<void> {
  await db.query(
    `WITH counted AS (
       UPDATE execution_counters SET total = total + 1 WHERE status = $3 AND slot = hot_slot()
     )
     UPDATE jobs SET last_run_at = $2, last_status = $3
     WHERE id = $1 AND (last_run_at IS NULL OR last_run_at <= $2)`,
    [execution.jobId, execution.startedAt, execution.status],
  );
}

/**
 * Closes attempts left `running` by a process that died: they are recorded as failed, with a note
 * in stderr, and counted. Returns the closed executions.
 */
export async function closeInterruptedAttempts(db: Queryable, now: Date, note: string): Promise<Execution[]> {
  const { rows } = await db.query<ExecutionRow>(
    `UPDATE executions SET status = 'failed', finished_at = $1,
       duration_ms = LEAST(2147483647, GREATEST(0, EXTRACT(EPOCH FROM ($1::timestamptz - started_at)) * 1000))::int,
       exit_code = -1, stderr = stderr || $2
     WHERE status = 'running' RETURNING ${FULL_COLUMNS}`,
    [now, storableText(note)],
  );
  return rows.map(toExecution);
}

export interface ExecutionQuery {
  jobId?: number;
  status?: ExecutionStatus;
  limit: number;
}

/**
 * Executions, running ones included, newest first, without their output, and the version of the list they were
 * read from (see listVersions.ts). A named (prepared) statement: planning this query costs several
 * times more than running it on the index, so each connection plans each of its four shapes once.
 */
export async function listExecutions(
  db: Pool | PoolClient,
  query: ExecutionQuery,
): Promise<{ executions: Execution[]; version: string }> {
  // Running attempts are listed too (their version bumps as they start: migration 006).
  const conditions = ['true'];
  const values: unknown[] = [];
  let name = 'crondeck_list_executions';
  if (query.jobId !== undefined) {
    values.push(query.jobId);
    conditions.push(`job_id = $${values.length}`);
    name += '_by_job';
  }
  if (query.status !== undefined) {
    values.push(query.status);
    conditions.push(`status = $${values.length}`);
    name += '_by_status';
  }
  values.push(query.limit);
  const list = `SELECT ${SUMMARY_COLUMNS} FROM executions WHERE ${conditions.join(' AND ')}
     ORDER BY started_at DESC, id DESC LIMIT $${values.length}`;
  const { rows } = await db.query<ExecutionRow & { list_version: string }>({
    name,
    text: `${withListVersion('executions', list)} ORDER BY q.started_at DESC, q.id DESC`,
    values,
  });
  const { version, rows: executionRows } = splitListVersion(rows, (row) => row.id === null);
  return { executions: executionRows.map(toExecution), version };
}

export async function findExecution(db: Queryable, id: number): Promise<Execution | null> {
  const { rows } = await db.query<ExecutionRow>(`SELECT ${FULL_COLUMNS} FROM executions WHERE id = $1`, [id]);
  return rows[0] ? toExecution(rows[0]) : null;
}

/** Deletes finished executions that started before `cutoff`, in batches; returns how many. */
export async function pruneExecutions(db: Queryable, cutoff: Date, batchSize = 10_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM executions WHERE id IN (
         SELECT id FROM executions WHERE started_at < $1 AND status <> 'running' LIMIT $2)`,
      [cutoff, batchSize],
    );
    removed += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return removed;
  }
}

export async function readExecutionCounters(db: Queryable): Promise<Record<FinalStatus, number>> {
  const { rows } = await db.query<{ status: FinalStatus; total: string }>(
    'SELECT status, sum(total)::bigint AS total FROM execution_counters GROUP BY status',
  );
  const counters = { success: 0, failed: 0, timeout: 0, skipped: 0 };
  for (const row of rows) counters[row.status] = Number(row.total);
  return counters;
}

/** Successes and failures (timeouts included) that started since `since`. */
export async function countRecentOutcomes(
  db: Queryable,
  since: Date,
): Promise<{ successes: number; failures: number }> {
  const { rows } = await db.query<{ successes: number; failures: number }>(
    `SELECT (count(*) FILTER (WHERE status = 'success'))::int AS successes,
            (count(*) FILTER (WHERE status IN ('failed', 'timeout')))::int AS failures
     FROM executions WHERE started_at >= $1`,
    [since],
  );
  return rows[0]!;
}

/** Count and total duration (seconds) of the latest `window` finished executions. */
export async function summariseRecentDurations(
  db: Queryable,
  window = 1000,
): Promise<{ count: number; sumSeconds: number }> {
  const { rows } = await db.query<{ count: number; sum_ms: string | null }>(
    `SELECT count(*)::int AS count, sum(duration_ms)::bigint AS sum_ms FROM (
       SELECT duration_ms FROM executions WHERE status <> 'running' ORDER BY started_at DESC, id DESC LIMIT $1) recent`,
    [window],
  );
  return { count: rows[0]!.count, sumSeconds: Number(rows[0]!.sum_ms ?? 0) / 1000 };
}

function durationMs(result: { startedAt: Date; finishedAt: Date }): number {
  return Math.max(0, result.finishedAt.getTime() - result.startedAt.getTime());
}
