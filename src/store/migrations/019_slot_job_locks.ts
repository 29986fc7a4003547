import { SLOT_EVIDENCE_LOCK_KEY, TURNED_LATE_REASON } from './017_slot_ledger';

/**
 * The slot evidence lock of migration 017, narrowed from one lock to one per job (issue 20's
 * recording bar). 017's trigger took a single lock shared, which the judge held exclusively for a
 * whole batch of 500 jobs: every recording of a run with a slot waited for the judge's whole pass.
 * Now a recording takes the locks of its own jobs, `(SLOT_EVIDENCE_LOCK_KEY, job id)` in the
 * two-key space of advisory locks (apart from every one-key lock: 017's, the migration's, the
 * leaders', the cluster runs'), and the judge takes the locks of the jobs it judges: a recording
 * waits only for a judgement of its own job (store/slots.ts lockJobsToJudge says why neither side
 * can deadlock). The rest of 017's trigger is unchanged.
 *
 * The trigger is also renamed so that it fires first of the AFTER INSERT triggers of executions
 * (they fire in the order of their names): a statement inserting running rows then waits for a
 * job's lock before it bumps the job list's version (migration 006), which a judge holding that
 * job's lock bumps when it moves cursors (they would otherwise wait for each other).
 */
export const slotJobLocksSchema = `
CREATE OR REPLACE FUNCTION slot_run_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  arrived_jobs integer;
BEGIN
  -- The locks of the jobs whose first attempts name a slot, shared, in ascending job order (the
  -- aggregate takes its rows as the sorted subquery gives them), in a statement of their own
  -- before any row of slots or slot_cursors is read or locked: the next statement's snapshot is
  -- taken once they are held, so the run is either seen by a judgement of its job or finds the slot
  -- that judgement wrote. A later attempt is no slot's evidence (the judge reads first attempts).
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
  )
  UPDATE slot_cursors c SET last_outcome = t.outcome
  FROM completed t
  WHERE c.job_id = t.job_id AND c.last_slot_at = t.scheduled_at AND c.last_outcome IS DISTINCT FROM t.outcome;
  RETURN NULL;
END
$$;
DROP TRIGGER executions_slot_run_arrived ON executions;
CREATE TRIGGER executions_arrived_for_slot
  AFTER INSERT ON executions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION slot_run_arrived();
`;
