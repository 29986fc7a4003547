import type { Pool, PoolClient } from 'pg';
import type {
  AttemptResult,
  Execution,
  ExecutionStatus,
  FailureReason,
  FinalStatus,
} from '../domain/execution';
import { storableReason } from '../domain/failureReasons';
import type { RunSlot, RunTrigger } from '../domain/slots';
import { boundedOutput } from '../domain/outputTail';
import { storableText } from '../domain/text';
import { prepared, type Queryable } from './database';
import { splitListVersion, withListVersion } from './listVersions';
import { type NamespaceFilter, namespaceCondition } from './namespaceFilter';

interface ExecutionRow {
  id: string;
  job_id: number;
  job_name: string;
  status: ExecutionStatus;
  started_at: Date;
  finished_at: Date | null;
  /** bigint (migration 012), which `pg` hands over as a string. */
  duration_ms: string | number | null;
  exit_code: number | null;
  stdout?: string;
  stderr?: string;
  attempt: number;
  reason: string | null;
  reason_message: string | null;
  scheduled_at: Date | null;
  trigger: RunTrigger | null;
  triggered_by: string | null;
}

const SUMMARY_COLUMNS =
  'id, job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, attempt, reason, reason_message, scheduled_at, trigger, triggered_by';
const FULL_COLUMNS = `${SUMMARY_COLUMNS}, stdout, stderr`;

function toExecution(row: ExecutionRow): Execution {
  return {
    id: Number(row.id),
    jobId: row.job_id,
    jobName: row.job_name,
    status: row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    exitCode: row.exit_code,
    stdout: row.stdout ?? '',
    stderr: row.stderr ?? '',
    attempt: row.attempt,
    reason: row.reason === null ? null : { code: row.reason, message: row.reason_message ?? '' },
    scheduledAt: row.scheduled_at,
    trigger: row.trigger,
    triggeredBy: row.triggered_by,
  };
}

/** An attempt that starts now, for `startAttempts`. */
export interface StartingAttempt {
  jobId: number;
  jobName: string;
  startedAt: Date;
  attempt: number;
  /** The registered process that runs it (migration 013), or null. */
  owner: number | null;
  /** The slot its run is for; absent for a run by hand. */
  slot?: RunSlot | null;
}

/**
 * Opens the rows of attempts that start now, in one statement; each stays `running` until
 * finished. Answers their ids, in the order given.
 */
export async function startAttempts(db: Queryable, attempts: StartingAttempt[]): Promise<number[]> {
  if (attempts.length === 0) return [];
  // Ids are drawn first, in the order given, because RETURNING does not promise that order.
  const { rows } = await db.query<{ id: string }>(
    prepared(
      'start_attempts',
      // The batch as one JSON array (see `createJobs` in jobs.ts).
      `WITH starting AS MATERIALIZED (
       SELECT nextval(pg_get_serial_sequence('executions', 'id')) AS id, t.*
       FROM ROWS FROM (json_to_recordset($1::json) AS (job_id int, job_name text, started_at timestamptz,
              attempt int, owner_process bigint, scheduled_at timestamptz, trigger text)) WITH ORDINALITY
         AS t(job_id, job_name, started_at, attempt, owner_process, scheduled_at, trigger, n)
     ),
     inserted AS (
       INSERT INTO executions (id, job_id, job_name, status, started_at, attempt, owner_process, scheduled_at, trigger)
       SELECT id, job_id, job_name, 'running', started_at, attempt, owner_process, scheduled_at, trigger
       FROM starting
     )
     SELECT id FROM starting ORDER BY n`,
      [
        JSON.stringify(
          attempts.map((a) => ({
            job_id: a.jobId,
            job_name: a.jobName,
            started_at: a.startedAt,
            attempt: a.attempt,
            owner_process: a.owner,
            scheduled_at: a.slot?.scheduledAt ?? null,
            trigger: a.slot?.trigger ?? null,
          })),
        ),
      ],
    ),
  );
  return rows.map((row) => Number(row.id));
}

/** The outcome of a running attempt, for `finishAttempts`. */
export interface AttemptOutcome {
  executionId: number;
  result: AttemptResult;
}

/**
 * Writes the outcomes of running attempts, all in one statement that also counts them
 * (`countingRowsOf`). An attempt that is not running
 * any more (already finished, or closed after a crash) is left alone, so an outcome is never
 * recorded or counted twice: the answer has an execution for each outcome written, null for each
 * left alone, in the order given. Output is whatever the command printed: it is made storable here
 * (`storableOutput`), where every runtime's results enter the database.
 */
export async function finishAttempts(
  db: Queryable,
  outcomes: AttemptOutcome[],
): Promise<(Execution | null)[]> {
  if (outcomes.length === 0) return [];
  const { rows } = await db.query<ExecutionRow>(
    prepared(
      'finish_attempts',
      `WITH outcome AS (
       SELECT * FROM json_to_recordset($1::json) AS t(id bigint, status text, finished_at timestamptz,
         duration_ms bigint, exit_code int, stdout text, stderr text, reason text, reason_message text)
     ),
     finished AS (
       UPDATE executions e SET status = o.status, finished_at = o.finished_at, duration_ms = o.duration_ms,
         exit_code = o.exit_code, stdout = o.stdout, stderr = o.stderr, reason = o.reason,
         reason_message = o.reason_message
       FROM outcome o WHERE e.id = o.id AND e.status = 'running'
       RETURNING ${qualified('e', FULL_COLUMNS)}
     ),
     ${countingRowsOf('finished')}
     SELECT * FROM finished`,
      [
        JSON.stringify(
          outcomes.map((o) => ({
            id: o.executionId,
            ...resultRecord(o.result),
          })),
        ),
      ],
    ),
  );
  const byId = new Map(rows.map((row) => [Number(row.id), toExecution(row)]));
  // Should one attempt be given twice, the first outcome is the one written and answered.
  return outcomes.map((o) => {
    const execution = byId.get(o.executionId) ?? null;
    byId.delete(o.executionId);
    return execution;
  });
}

/** An execution that arrives already finished: a skipped fire time, or a pod's report. */
export type FinishedExecution = AttemptResult & {
  jobId: number;
  jobName: string;
  attempt: number;
  /** Makes the insert idempotent: one with a key already stored for its job inserts nothing. */
  reportKey?: string;
  /** The slot its run is for (a skipped fire time, a pod's report); absent for a run by hand. */
  slot?: RunSlot | null;
  /**
   * The cluster run (Kubernetes Job UID) it is an attempt of: a run someone started by hand
   * (run_triggers, migration 025) gives it `triggered_by`.
   */
  runUid?: string;
};

/**
 * Inserts executions that are already finished, in one statement that also counts them
 * (`countingRowsOf`). The answer has the stored
 * execution for each one inserted and null for each whose `reportKey` was stored already (a report
 * that arrives twice, whether in one call or two), in the order given.
 */
export async function insertFinishedExecutions(
  db: Queryable,
  executions: FinishedExecution[],
): Promise<(Execution | null)[]> {
  if (executions.length === 0) return [];
  // Ids are drawn before inserting so that each stored row can be matched to what was given:
  // RETURNING names no input row, and ON CONFLICT leaves some out.
  const { rows } = await db.query<ExecutionRow & { n: string }>(
    prepared(
      'insert_finished_executions',
      `WITH given AS MATERIALIZED (
       SELECT nextval(pg_get_serial_sequence('executions', 'id')) AS id, t.*
       FROM ROWS FROM (json_to_recordset($1::json) AS (job_id int, job_name text, status text,
              started_at timestamptz, finished_at timestamptz, duration_ms bigint, exit_code int, stdout text,
              stderr text, attempt int, report_key text, reason text, reason_message text,
              scheduled_at timestamptz, trigger text, run_uid text)) WITH ORDINALITY
         AS t(job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, stdout, stderr, attempt, report_key,
              reason, reason_message, scheduled_at, trigger, run_uid, n)
     ),
     inserted AS (
       INSERT INTO executions (id, job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, stdout, stderr, attempt,
                               report_key, reason, reason_message, scheduled_at, trigger, triggered_by)
       SELECT g.id, g.job_id, g.job_name, g.status, g.started_at, g.finished_at, g.duration_ms, g.exit_code, g.stdout,
              g.stderr, g.attempt, g.report_key, g.reason, g.reason_message, g.scheduled_at, g.trigger,
              -- Who started it by hand (migration 025): a run now by its Job, a backfill by its slot.
              coalesce(rt.triggered_by, CASE WHEN g.trigger = 'backfill' THEN (
                SELECT b.requested_by FROM slot_backfills b
                 WHERE b.job_id = g.job_id AND g.scheduled_at = ANY (b.slots) ORDER BY b.id DESC LIMIT 1) END)
       FROM given g LEFT JOIN run_triggers rt ON rt.run_uid = g.run_uid AND rt.job_id = g.job_id
       ORDER BY g.n
       ON CONFLICT (job_id, report_key) DO NOTHING RETURNING ${FULL_COLUMNS}
     ),
     ${countingRowsOf('inserted')}
     SELECT given.n, ${qualified('inserted', FULL_COLUMNS)} FROM inserted JOIN given ON given.id = inserted.id`,
      [
        JSON.stringify(
          executions.map((e) => ({
            job_id: e.jobId,
            job_name: e.jobName,
            started_at: e.startedAt,
            ...resultRecord(e),
            attempt: e.attempt,
            report_key: e.reportKey ?? null,
            scheduled_at: e.slot?.scheduledAt ?? null,
            trigger: e.slot?.trigger ?? null,
            run_uid: e.runUid ?? null,
          })),
        ),
      ],
    ),
  );
  const answers: (Execution | null)[] = executions.map(() => null);
  for (const row of rows) answers[Number(row.n) - 1] = toExecution(row);
  return answers;
}

/**
 * The part of a recording statement that counts the executions it wrote (the rows of its CTE
 * `source`) in the durable counter behind `service_executions_total`, and sets each job's last run
 * to its latest one: no round trip of its own, however many executions. The counters' slot is this
 * connection's (migration 009), so concurrent recordings do not wait on one row.
 */
function countingRowsOf(source: string): string {
  return `counted AS (
       UPDATE execution_counters c SET total = c.total + s.n
       FROM (SELECT status, count(*) AS n FROM ${source} GROUP BY status) s
       WHERE c.status = s.status AND c.slot = hot_slot()
     ),
     last_runs AS (
       UPDATE jobs j SET last_run_at = latest.started_at, last_status = latest.status
       FROM (SELECT DISTINCT ON (job_id) job_id, started_at, status FROM ${source}
             ORDER BY job_id, started_at DESC, id DESC) latest
       WHERE j.id = latest.job_id AND (j.last_run_at IS NULL OR j.last_run_at <= latest.started_at)
     )`;
}

/** Counts executions written by a statement of its own (closing interrupted attempts), as `countingRowsOf` does. */
export async function countFinishedExecutions(db: Queryable, executions: Execution[]): Promise<void> {
  if (executions.length === 0) return;
  await db.query(
    `WITH recorded AS (
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::text[]) AS t(id, job_id, started_at, status)
     ),
     ${countingRowsOf('recorded')}
     SELECT 1`,
    [
      executions.map((e) => e.id),
      executions.map((e) => e.jobId),
      executions.map((e) => e.startedAt),
      executions.map((e) => e.status),
    ],
  );
}

export interface ExecutionQuery {
  jobId?: number;
  status?: ExecutionStatus;
  limit: number;
  /** Only the runs of jobs of these namespaces (a caller's, or `?namespace=`). */
  namespaces?: NamespaceFilter;
}

/**
 * Executions, newest first, without their output, and the version of the list they were read from
 * (see listVersions.ts). Without a status, finished executions only: an attempt in progress is not
 * an execution of the spec yet, and shows only to a query for `running`. A named (prepared)
 * statement: planning this query costs several times more than running it on the index, so each
 * connection plans each of its four shapes once.
 */
export async function listExecutions(
  db: Pool | PoolClient,
  query: ExecutionQuery,
): Promise<{ executions: Execution[]; version: string }> {
  // The version also bumps as attempts start (migration 006), for the lists of running ones.
  const conditions: string[] = [];
  const values: unknown[] = [];
  let name = 'list_executions';
  if (query.jobId !== undefined) {
    values.push(query.jobId);
    conditions.push(`job_id = $${values.length}`);
    name += '_by_job';
  }
  if (query.status !== undefined) {
    values.push(query.status);
    conditions.push(`status = $${values.length}`);
    name += '_by_status';
  } else {
    conditions.push(`status <> 'running'`);
  }
  if (query.namespaces) {
    const inNamespaces = namespaceCondition('j', query.namespaces, values);
    conditions.push(`job_id IN (SELECT j.id FROM jobs j WHERE ${inNamespaces})`);
    name += '_in_namespaces';
  }
  values.push(query.limit);
  const list = `SELECT ${SUMMARY_COLUMNS} FROM executions WHERE ${conditions.join(' AND ')}
     ORDER BY started_at DESC, id DESC LIMIT $${values.length}`;
  const { rows } = await db.query<ExecutionRow & { list_version: string }>(
    prepared(name, `${withListVersion('executions', list)} ORDER BY q.started_at DESC, q.id DESC`, values),
  );
  const { version, rows: executionRows } = splitListVersion(rows, (row) => row.id === null);
  return { executions: executionRows.map(toExecution), version };
}

/**
 * Gives the finished execution with report key `reportKey` of job `jobId` a reason it did not have
 * (what the controller saw of its pod, after the pod's report). Answers it, or null when there is
 * no such execution or it had that reason already. Nothing is counted again.
 */
export async function setExecutionReason(
  db: Queryable,
  jobId: number,
  reportKey: string,
  reason: FailureReason,
): Promise<Execution | null> {
  const stored = storableReason(reason)!;
  const { rows } = await db.query<ExecutionRow>(
    `UPDATE executions SET reason = $3, reason_message = $4
     WHERE job_id = $1 AND report_key = $2 AND status <> 'running'
       AND (reason, reason_message) IS DISTINCT FROM ($3, $4)
     RETURNING ${FULL_COLUMNS}`,
    [jobId, reportKey, stored.code, stored.message],
  );
  return rows[0] ? toExecution(rows[0]) : null;
}

/** Job `jobId`'s latest failed or timed-out execution, from the small index of failures (migration 016). */
export async function findLastFailure(db: Queryable, jobId: number): Promise<Execution | null> {
  const { rows } = await db.query<ExecutionRow>(
    prepared(
      'find_last_failure',
      `SELECT ${SUMMARY_COLUMNS} FROM executions WHERE job_id = $1 AND status IN ('failed', 'timeout')
       ORDER BY started_at DESC, id DESC LIMIT 1`,
      [jobId],
    ),
  );
  return rows[0] ? toExecution(rows[0]) : null;
}

/** The job of execution `id`, or null when there is no such execution. */
export async function findJobOfExecution(db: Queryable, id: number): Promise<number | null> {
  const { rows } = await db.query<{ job_id: number }>('SELECT job_id FROM executions WHERE id = $1', [id]);
  return rows[0]?.job_id ?? null;
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

/**
 * Successes and failures (timeouts included) that started since `since`; of the jobs of some
 * namespaces only with `filter`.
 */
export async function countRecentOutcomes(
  db: Queryable,
  since: Date,
  filter: NamespaceFilter | null = null,
): Promise<{ successes: number; failures: number }> {
  const values: unknown[] = [since];
  const inNamespaces = filter
    ? `AND job_id IN (SELECT j.id FROM jobs j WHERE ${namespaceCondition('j', filter, values)})`
    : '';
  const { rows } = await db.query<{ successes: number; failures: number }>(
    `SELECT (count(*) FILTER (WHERE status = 'success'))::int AS successes,
            (count(*) FILTER (WHERE status IN ('failed', 'timeout')))::int AS failures
     FROM executions WHERE started_at >= $1 ${inNamespaces}`,
    values,
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

/**
 * Output as it is stored, whoever sent it: NUL shown as "␀" (storableText), and at most the last
 * 1 MiB of each stream (boundedOutput), as a runner keeps it.
 */
function storableOutput(output: string): string {
  return boundedOutput(storableText(output));
}

/** "id, status" read as "e.id, e.status": a column list of one table of a join. */
function qualified(table: string, columns: string): string {
  return columns
    .split(', ')
    .map((column) => `${table}.${column}`)
    .join(', ');
}

/**
 * The columns of an attempt's result, as the recording statements take them in their JSON batch:
 * output and reason made storable here, where every runtime's results enter the database.
 */
function resultRecord(result: AttemptResult) {
  const reason = storableReason(result.reason);
  return {
    status: result.status,
    finished_at: result.finishedAt,
    duration_ms: durationMs(result),
    exit_code: result.exitCode,
    stdout: storableOutput(result.stdout),
    stderr: storableOutput(result.stderr),
    reason: reason?.code ?? null,
    reason_message: reason?.message ?? null,
  };
}

function durationMs(result: { startedAt: Date; finishedAt: Date }): number {
  return Math.max(0, result.finishedAt.getTime() - result.startedAt.getTime());
}
