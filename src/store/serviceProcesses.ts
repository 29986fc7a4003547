import type { ProcessIdentity } from '../runner/processIdentity';
import type { Queryable } from './database';

/** A registered process of `crondeck serve` (migration 013), as the database last heard of it. */
export interface RegisteredProcess {
  id: number;
  identity: ProcessIdentity;
  /** No heartbeat for longer than the timeout given, by the database's clock. */
  silent: boolean;
}

/** Registers this process; answers its id, which its running attempts name. */
export async function registerProcess(db: Queryable, identity: ProcessIdentity): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO service_processes (host, boot_id, pid_namespace, pid, start_ticks)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [identity.host, identity.bootId, identity.pidNamespace, identity.pid, identity.startTicks],
  );
  return Number(rows[0]!.id);
}

/**
 * A sign of life. Registers the process again under its id if its row is gone (another process
 * judged it gone during a long stall), so that its later attempts are not judged by a missing row.
 */
export async function beat(db: Queryable, id: number, identity: ProcessIdentity): Promise<void> {
  await db.query(
    `INSERT INTO service_processes (id, host, boot_id, pid_namespace, pid, start_ticks)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
    [id, identity.host, identity.bootId, identity.pidNamespace, identity.pid, identity.startTicks],
  );
}

/** Every registered process; `silent` when it has not beaten for `timeoutMs`. */
export async function listProcesses(db: Queryable, timeoutMs: number): Promise<RegisteredProcess[]> {
  const { rows } = await db.query<{
    id: string;
    host: string;
    boot_id: string | null;
    pid_namespace: string | null;
    pid: number;
    start_ticks: string | null;
    silent: boolean;
  }>(
    `SELECT id, host, boot_id, pid_namespace, pid, start_ticks::text AS start_ticks,
       heartbeat_at < now() - make_interval(secs => $1::double precision / 1000) AS silent
     FROM service_processes`,
    [timeoutMs],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    identity: {
      host: row.host,
      bootId: row.boot_id,
      pidNamespace: row.pid_namespace,
      pid: row.pid,
      startTicks: row.start_ticks,
    },
    silent: row.silent,
  }));
}

/** Forgets processes known to be gone, except any that still owns an attempt in progress. */
export async function forgetProcesses(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `DELETE FROM service_processes p WHERE p.id = ANY($1::bigint[])
       AND NOT EXISTS (SELECT 1 FROM executions e WHERE e.status = 'running' AND e.owner_process = p.id)`,
    [ids],
  );
}
