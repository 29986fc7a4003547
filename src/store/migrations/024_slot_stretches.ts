import { SLOT_EVIDENCE_LOCK_KEY, TURNED_LATE_REASON } from './017_slot_ledger';

/**
 * Stretches of the slot ledger (issue 38): a run of a job's slots after a long gap of which
 * nothing is known (a restore, an outage of months, a cursor moved by SQL), judged once for all
 * and kept as one row rather than one per slot. Months of a job firing every minute were hundreds
 * of thousands of rows, judged a thousand a pass, and the service ran out of memory judging them.
 *
 * - `slot_stretches`: the slots of `fields` in `time_zone` (the schedule in force then, canonical
 *   fields and the zone they are read in) from `first_at` to `last_at`, both slots, `slot_count` of
 *   them, all with one outcome (never a run: `missed`, `skipped`, `suspended`, `paused`) and reason.
 *   Written once, by the judge, with its cursor's move; the slots API answers each fire time of a
 *   stretch as a slot of its own (store/slots.ts `listSlotsJson`). Its primary key is the job and
 *   the first slot, as `slots`'.
 * - A row of `slots` inside a stretch stands for that slot instead: a run (or a claim) arriving
 *   for a slot of a `missed` stretch writes one, `late`, as it turns a `missed` row `late` (017's
 *   rule); the stretch is left as it is (its count stays what was judged, as the counters do).
 * - The slot pages' version (migration 018) moves with every write of a stretch too.
 */
export const slotStretchesSchema = `
CREATE TABLE slot_stretches (
  job_id      integer NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  first_at    timestamptz NOT NULL,
  last_at     timestamptz NOT NULL,
  slot_count  integer NOT NULL CHECK (slot_count >= 2),
  outcome     text NOT NULL CHECK (outcome IN ('skipped', 'suspended', 'paused', 'missed')),
  reason      text,
  fields      text NOT NULL,
  time_zone   text NOT NULL,
  judged_at   timestamptz NOT NULL,
  PRIMARY KEY (job_id, first_at),
  CHECK (last_at > first_at)
);

CREATE TRIGGER slot_stretches_inserted_bump_pages_version
  AFTER INSERT ON slot_stretches REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_slot_pages_version();
CREATE TRIGGER slot_stretches_updated_bump_pages_version
  AFTER UPDATE ON slot_stretches REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_slot_pages_version();
CREATE TRIGGER slot_stretches_deleted_bump_pages_version
  AFTER DELETE ON slot_stretches REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_slot_pages_version();
CREATE TRIGGER slot_stretches_truncated_bump_pages_version
  AFTER TRUNCATE ON slot_stretches
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('slots');

-- Migration 019's function, and a run arriving for a slot inside a missed stretch (with no row of
-- its own yet) writes that slot's row, late, with the run.
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
      s.outcome = 'missed' OR (s.reason = '${TURNED_LATE_REASON}' AND cardinality(s.execution_ids) = 0)
        AS takes_run,
      CASE WHEN s.outcome = 'missed' THEN a.ids[1:1]
           ELSE a.ids[1:1 + cardinality(c.duplicate_keys) - cardinality(s.execution_ids)] END AS ids
    FROM arrived a
    JOIN slots s ON s.job_id = a.job_id AND s.scheduled_at = a.scheduled_at
    LEFT JOIN slot_claims c ON c.job_id = a.job_id AND c.scheduled_at = a.scheduled_at
    WHERE s.outcome = 'missed'
      OR (s.outcome IN ('ran', 'late', 'duplicate')
          AND cardinality(s.execution_ids) < 1 + cardinality(c.duplicate_keys))
  ),
  completed AS (
    UPDATE slots s SET
      outcome = CASE WHEN s.outcome = 'missed' THEN 'late' ELSE s.outcome END,
      reason = CASE WHEN s.outcome = 'missed' THEN '${TURNED_LATE_REASON}' ELSE s.reason END,
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
