import type { Queryable } from './database';

export interface SchedulerState {
  paused: boolean;
  until: Date | null;
}

export async function readSchedulerState(db: Queryable): Promise<SchedulerState> {
  const { rows } = await db.query<{ paused: boolean; paused_until: Date | null }>(
    'SELECT paused, paused_until FROM scheduler_state WHERE id = 1',
  );
  return { paused: rows[0]?.paused ?? false, until: rows[0]?.paused_until ?? null };
}

export async function writeSchedulerState(db: Queryable, state: SchedulerState): Promise<void> {
  await db.query('UPDATE scheduler_state SET paused = $1, paused_until = $2 WHERE id = 1', [
    state.paused,
    state.until,
  ]);
}

/** Size of the current database in bytes, as Postgres accounts it. */
export async function databaseSizeBytes(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size');
  return Number(rows[0]!.size);
}
