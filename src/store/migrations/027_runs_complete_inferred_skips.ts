import { SLOT_EVIDENCE_LOCK_KEY, TURNED_LATE_REASON } from './017_slot_ledger';

/**
 * The reason of a slot judged `skipped` for an attempt that seemed in progress at its time (no
 * `skipped` row: store/slots.ts `activeRunsIn`) that a run of its own (or a claim) then turned `late`.
 */
export const TURNED_LATE_AFTER_SKIP_REASON =
  'judged skipped (an earlier run seemed in progress), then a run for it started late';

/**
 * A run recorded while its slot is judged waits for the judgement (migration 019's lock) and then
 * completes the slot the judgement wrote. Until now it completed only a `missed` slot; but a slot
 * whose run was not yet visible can also be judged `skipped` because an earlier attempt of the job
 * was still going (issue 38, defect 13's rule): that slot had a run after all. Such a slot, with no
 * `skipped` row behind it (no execution ids), now takes its run as a `missed` one does, `late`.
 * Otherwise migration 024's function as it was.
 */
export const runsCompleteInferredSkipsSchema = `
CREATE OR REPLACE FUNCTION slot_run_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  arrived_jobs integer;
BEGIN
  SELECT count(pg_advisory_xact_lock_shared(${SLOT_EVIDENCE_LOCK_KEY}, job_id)) INTO arrived_jobs
    FROM (SELECT DISTINCT job_id FROM new_rows WHERE scheduled_at IS NOT NULL AND attempt = 0
          ORDER BY job_id) AS ascending;
  IF arrived_jobs = 0 THEN
    RETURN NULL;
  END IF;
  WITH arrived AS (
    SELECT job_id, scheduled_at, array_agg(id ORDER BY started_at, id) AS ids, min(started_at) AS started_at
    FROM new_rows
    WHERE scheduled_at IS NOT NULL AND attempt = 0 AND status <> 'skipped'
      AND trigger IS DISTINCT FROM 'backfill'
    GROUP BY job_id, scheduled_at
  ),
  completing AS (
    SELECT s.job_id, s.scheduled_at, a.started_at,
      (s.outcome IN ('missed', 'skipped')
       OR s.reason IN ('${TURNED_LATE_REASON}', '${TURNED_LATE_AFTER_SKIP_REASON}'))
        AND cardinality(s.execution_ids) = 0 AS takes_run,
      CASE WHEN s.outcome IN ('missed', 'skipped') THEN a.ids[1:1]
           ELSE a.ids[1:1 + cardinality(c.duplicate_keys) - cardinality(s.execution_ids)] END AS ids
    FROM arrived a
    JOIN slots s ON s.job_id = a.job_id AND s.scheduled_at = a.scheduled_at
    LEFT JOIN slot_claims c ON c.job_id = a.job_id AND c.scheduled_at = a.scheduled_at
    WHERE s.outcome = 'missed'
      OR (s.outcome = 'skipped' AND cardinality(s.execution_ids) = 0)
      OR (s.outcome IN ('ran', 'late', 'duplicate')
          AND cardinality(s.execution_ids) < 1 + cardinality(c.duplicate_keys))
  ),
  completed AS (
    UPDATE slots s SET
      outcome = CASE WHEN s.outcome IN ('missed', 'skipped') THEN 'late' ELSE s.outcome END,
      reason = CASE WHEN s.outcome = 'missed' THEN '${TURNED_LATE_REASON}'
                    WHEN s.outcome = 'skipped' THEN '${TURNED_LATE_AFTER_SKIP_REASON}'
                    ELSE s.reason END,
      execution_ids = ARRAY(SELECT unnest(s.execution_ids || t.ids) AS id ORDER BY id),
      started_at = CASE WHEN t.takes_run THEN t.started_at ELSE s.started_at END,
      delay_ms = CASE WHEN t.takes_run
                      THEN greatest(0, (extract(epoch FROM t.started_at - s.scheduled_at) * 1000)::bigint)
                      ELSE s.delay_ms END
    FROM completing t
    WHERE s.job_id = t.job_id AND s.scheduled_at = t.scheduled_at
    RETURNING s.job_id, s.scheduled_at, s.outcome
  ),
  singled_out AS (
    INSERT INTO slots (job_id, scheduled_at, outcome, execution_ids, started_at, delay_ms, reason, judged_at)
    SELECT a.job_id, a.scheduled_at, 'late', a.ids[1:1], a.started_at,
           greatest(0, (extract(epoch FROM a.started_at - a.scheduled_at) * 1000)::bigint),
           '${TURNED_LATE_REASON}', st.judged_at
    FROM arrived a
    CROSS JOIN LATERAL (
      SELECT judged_at FROM slot_stretches st
      WHERE st.job_id = a.job_id AND st.first_at <= a.scheduled_at AND st.last_at >= a.scheduled_at
        AND st.outcome = 'missed'
      ORDER BY st.first_at DESC LIMIT 1
    ) st
    WHERE NOT EXISTS (SELECT 1 FROM slots s WHERE s.job_id = a.job_id AND s.scheduled_at = a.scheduled_at)
    ON CONFLICT (job_id, scheduled_at) DO NOTHING
    RETURNING job_id, scheduled_at, outcome
  )
  UPDATE slot_cursors c SET last_outcome = t.outcome
  FROM (SELECT * FROM completed UNION ALL SELECT * FROM singled_out) t
  WHERE c.job_id = t.job_id AND c.last_slot_at = t.scheduled_at AND c.last_outcome IS DISTINCT FROM t.outcome;
  RETURN NULL;
END
$$;
`;
