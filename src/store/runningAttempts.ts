import type { Execution, RunningAttempt } from '../domain/execution';
import type { ProcessGroup } from '../runner/processGroup';
import type { Queryable } from './database';
import { findExecution } from './executions';
import { SERVICE_STOPPED } from '../domain/failureReasons';

/** The job's latest attempt in progress, or null. */
export async function findRunningAttempt(db: Queryable, jobId: number): Promise<RunningAttempt | null> {
  const { rows } = await db.query<{ id: string; started_at: Date; attempt: number }>(
    `SELECT id, started_at, attempt FROM executions WHERE status = 'running' AND job_id = $1
     ORDER BY started_at DESC, id DESC LIMIT 1`,
    [jobId],
  );
  const row = rows[0];
  return row ? { executionId: Number(row.id), startedAt: row.started_at, attempt: row.attempt } : null;
}

/** An attempt in progress, with who runs it and where its processes are. */
export interface RunningAttemptOwnership {
  executionId: number;
  jobId: number;
  /** The registered process that runs it (migration 013); null for one started before that. */
  ownerId: number | null;
  /** Where its processes are, once they started; null before or where /proc cannot say. */
  group: ProcessGroup | null;
}

/** Every attempt in progress, from the small partial index of running rows. */
export async function listRunningAttempts(db: Queryable): Promise<RunningAttemptOwnership[]> {
  const { rows } = await db.query<{
    id: string;
    job_id: number;
    owner_process: string | null;
    process_group: number | null;
    process_start_ticks: string | null;
    process_boot_id: string | null;
  }>(
    `SELECT id, job_id, owner_process, process_group, process_start_ticks::text AS process_start_ticks,
       process_boot_id FROM executions WHERE status = 'running'`,
  );
  return rows.map((row) => ({
    executionId: Number(row.id),
    jobId: row.job_id,
    ownerId: row.owner_process === null ? null : Number(row.owner_process),
    group:
      row.process_group === null || row.process_start_ticks === null || row.process_boot_id === null
        ? null
        : { pgid: row.process_group, leaderStartTicks: row.process_start_ticks, bootId: row.process_boot_id },
  }));
}

/**
 * Closes one attempt that a previous process left running, as failed with what is known of its
 * end (`exitCode`, and `note` appended to its stderr). Returns null when it is not running any more.
 */
export async function closeAbandonedAttempt(
  db: Queryable,
  executionId: number,
  now: Date,
  ending: { exitCode: number; note: string },
): Promise<Execution | null> {
  const { rowCount } = await db.query(
    `UPDATE executions SET status = 'failed', finished_at = $2,
       duration_ms = GREATEST(0, EXTRACT(EPOCH FROM ($2::timestamptz - started_at)) * 1000)::bigint,
       exit_code = $3, stderr = stderr || $4, reason = $5, reason_message = $6
     WHERE id = $1 AND status = 'running'`,
    [executionId, now, ending.exitCode, ending.note, SERVICE_STOPPED.code, SERVICE_STOPPED.message],
  );
  return rowCount ? findExecution(db, executionId) : null;
}
