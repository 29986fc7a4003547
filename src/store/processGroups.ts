import type { ProcessGroup } from '../runner/processGroup';
import { prepared, type Queryable } from './database';

/**
 * Keeps where running attempts' processes are (migration 006), many in one statement: a fire time
 * of thousands of jobs starts thousands of commands, and a statement each queued every other
 * statement of the process behind them (the embedded database has one session).
 */
export async function recordProcessGroups(
  db: Queryable,
  groups: readonly { executionId: number; group: ProcessGroup }[],
): Promise<void> {
  if (groups.length === 0) return;
  await db.query(
    prepared(
      'record_process_groups',
      `UPDATE executions e SET process_group = g.pgid, process_start_ticks = g.ticks, process_boot_id = g.boot
         FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[]) AS g(id, pgid, ticks, boot)
        WHERE e.id = g.id AND e.status = 'running'`,
      [
        groups.map((each) => each.executionId),
        groups.map((each) => each.group.pgid),
        groups.map((each) => each.group.leaderStartTicks),
        groups.map((each) => each.group.bootId),
      ],
    ),
  );
}
