import type { Queryable } from './database';

/**
 * Run requests (migrations 007 and 023): a job's claim on its one run at a time. A request is made
 * by run-now on any replica and kept until the run it asked for has ended; at most one per job
 * (a unique index), so that two replicas asked at once cannot both say yes. The leader takes a
 * waiting request (`taken_by`) when it starts its run. A run of the schedule holds one too while
 * it waits to retry, when no attempt of it is running for others to see.
 */
export interface RunRequest {
  id: number;
  jobId: number;
}

/**
 * Asks for a run of the job now; answers the request's id, or null when the job has a run
 * requested or going already: a request (waiting, taken, or held by a run waiting to retry) or an
 * attempt in progress in any process. One statement, so that of two replicas asked at once one
 * wins: the unique index decides between two inserts, and the running check is the same
 * statement's. `takenBy`: the leader asking for its own run, which it starts at once.
 */
export async function requestRun(
  db: Queryable,
  jobId: number,
  takenBy: number | null,
): Promise<number | null> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO run_requests (job_id, taken_by)
     SELECT $1, $2
      WHERE NOT EXISTS (SELECT 1 FROM executions WHERE status = 'running' AND job_id = $1)
     ON CONFLICT (job_id) DO NOTHING
     RETURNING id`,
    [jobId, takenBy],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/**
 * Holds the job's claim for a run of `process` that has no attempt running (it waits to retry);
 * answers its id, or null when the job has a request already (which then waits for this run).
 */
export async function holdRunClaim(db: Queryable, jobId: number, process: number): Promise<number | null> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO run_requests (job_id, taken_by) VALUES ($1, $2)
     ON CONFLICT (job_id) DO NOTHING RETURNING id`,
    [jobId, process],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/** The requests no process has taken yet, oldest first. */
export async function listWaitingRunRequests(db: Queryable): Promise<RunRequest[]> {
  const { rows } = await db.query<{ id: string; job_id: number }>(
    'SELECT id, job_id FROM run_requests WHERE taken_by IS NULL ORDER BY id',
  );
  return rows.map((row) => ({ id: Number(row.id), jobId: row.job_id }));
}

/** Takes a waiting request for `process`, which starts its run; false when another took it first. */
export async function takeRunRequest(db: Queryable, id: number, process: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE run_requests SET taken_by = $2 WHERE id = $1 AND taken_by IS NULL`,
    [id, process],
  );
  return rowCount === 1;
}

/** Puts a taken request back, for the leader to start when the job's run in progress has ended. */
export async function returnRunRequest(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE run_requests SET taken_by = NULL WHERE id = $1', [id]);
}

/** The run of a request (or the run that held it) has ended: the job may run again. */
export async function endRunRequest(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM run_requests WHERE id = $1', [id]);
}
