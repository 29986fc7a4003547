import type { Queryable } from './database';

/**
 * Whether the run `runKey` was refused its slot (migration 017's `slot_claims`): another run had
 * claimed it, so this one ran nothing and has nothing to record.
 */
export async function wasRunPrevented(
  db: Queryable,
  run: { jobId: number; scheduledAt: Date; runKey: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM slot_claims WHERE job_id = $1 AND scheduled_at = $2 AND $3 = ANY (prevented_keys)`,
    [run.jobId, run.scheduledAt, run.runKey],
  );
  return (rowCount ?? 0) > 0;
}
