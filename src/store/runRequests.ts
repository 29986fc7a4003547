import type { Queryable } from './database';

/** Asks the replica that fires jobs to run a job now (migration 007). */
export async function requestRun(db: Queryable, jobId: number): Promise<void> {
  await db.query('INSERT INTO run_requests (job_id) VALUES ($1)', [jobId]);
}

/** Takes every pending run request, oldest first; each is taken once, by one replica. */
export async function takeRunRequests(db: Queryable): Promise<number[]> {
  const { rows } = await db.query<{ job_id: number; id: string }>(
    'DELETE FROM run_requests RETURNING job_id, id',
  );
  return rows.sort((a, b) => Number(a.id) - Number(b.id)).map((row) => row.job_id);
}
