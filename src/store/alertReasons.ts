import type { FailureReason } from '../domain/execution';
import { storableReason } from '../domain/failureReasons';
import type { Queryable } from './database';

/**
 * The alerts of a cluster run's final execution (job `jobId`, report key `reportKey`) that wait for
 * the controller's word on it (outboxHook: `awaitsClusterReason`), not tried yet: their snapshot
 * takes `reason` (the generic payload and every format are made from it), and they are due as if
 * they had never waited. With `reason` null they are only sent on, as they are.
 */
export async function reviseWaitingAlerts(
  db: Queryable,
  jobId: number,
  reportKey: string,
  reason: FailureReason | null,
): Promise<number> {
  const stored = storableReason(reason);
  const { rowCount } = await db.query(
    `UPDATE alert_outbox o SET
       snapshot = CASE WHEN $3::text IS NULL OR NOT (o.snapshot ? 'execution') THEN o.snapshot
         ELSE jsonb_set(jsonb_set(o.snapshot, '{execution,reason}', to_jsonb($3::text)),
                        '{execution,reasonMessage}', to_jsonb($4::text)) END,
       next_attempt_at = LEAST(o.next_attempt_at, o.created_at)
     FROM executions e
     WHERE e.job_id = $1 AND e.report_key = $2 AND o.execution_id = e.id
       AND o.state = 'pending' AND o.attempts = 0`,
    [jobId, reportKey, stored?.code ?? null, stored?.message ?? null],
  );
  return rowCount ?? 0;
}
