import type { SchedulerState } from '../domain/schedulerState';
import type { Queryable } from './database';

export async function readSchedulerState(db: Queryable): Promise<SchedulerState> {
  const { rows } = await db.query<{ paused: boolean; paused_until: Date | null }>(
    'SELECT paused, paused_until FROM scheduler_state WHERE id = 1',
  );
  return { paused: rows[0]?.paused ?? false, until: rows[0]?.paused_until ?? null };
}

/**
 * The scheduler's state once a change of it that is being made has ended. A pause or a resume
 * writes the state and patches every CronJob in one transaction (SchedulerControl), so a reader
 * that one of those patches woke (the controller) would read the state from before the change and
 * undo it. `FOR SHARE` waits for the writer's transaction, then reads what it committed.
 */
export async function readSchedulerStateAfterChanges(db: Queryable): Promise<SchedulerState> {
  const { rows } = await db.query<{ paused: boolean; paused_until: Date | null }>(
    'SELECT paused, paused_until FROM scheduler_state WHERE id = 1 FOR SHARE',
  );
  return { paused: rows[0]?.paused ?? false, until: rows[0]?.paused_until ?? null };
}

export async function writeSchedulerState(db: Queryable, state: SchedulerState): Promise<void> {
  await db.query('UPDATE scheduler_state SET paused = $1, paused_until = $2 WHERE id = 1', [
    state.paused,
    state.until,
  ]);
}

/**
 * Ends the pause that lasts until `until`, and only that one: a pause set again meanwhile (by
 * anyone, with another end or none) is left alone. Returns whether it ended it.
 */
export async function endPauseAt(db: Queryable, until: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE scheduler_state SET paused = false, paused_until = NULL WHERE id = 1 AND paused AND paused_until = $1',
    [until],
  );
  return (rowCount ?? 0) > 0;
}

/** Size of the current database in bytes, as Postgres accounts it. */
export async function databaseSizeBytes(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size');
  return Number(rows[0]!.size);
}
