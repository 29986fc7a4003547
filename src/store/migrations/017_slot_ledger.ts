/**
 * The slot ledger (issue 20, docs/slots.md): every fire time of a job's schedule gets one outcome.
 *
 * - `jobs`: the grace (`late_after_s`), the catch-up policy (null: none) and whether a slot may
 *   run twice. A trigger of its own bumps the definitions' version (migration 010) when they change.
 * - `executions.scheduled_at` / `trigger`: the slot a run is for and why it ran (null: by hand, or
 *   recorded before the ledger). Looked up by job and slot when slots are judged.
 * - `slot_cursors`: one row per job, the judge's cursor. Every slot at or before `judged_until` is
 *   judged. `due_at` is when the next slot is to be judged (its time plus the grace; null: to be
 *   computed), so a pass reads only the jobs with something to judge. `schedule`/`timezone` are
 *   those the slots after `judged_until` are read with, `late_after_s` the grace `due_at` has; `earlier_schedules` the replaced ones whose
 *   slots up to their `until` are not all judged yet (a slot is judged by the schedule in force at
 *   its time). The cursor has a table of its own, not columns of `jobs`: the judge moves it while
 *   recordings update the job rows' last run, and neither then waits on (or deadlocks with) the
 *   other. A job's last judged slot is kept here too, for the job object's `lastSlot`.
 *   Existing jobs start at this migration's time: the ledger never judges years of history.
 * - `slots`: one row per judged slot, written once (by the judge, with the cursor's move, in one
 *   transaction); its primary key serves `GET /api/jobs/:id/slots` newest first.
 * - `slot_holds`: when a job was switched off, or the scheduler paused (job_id null), so that the
 *   judge knows why nothing ran at a time.
 * - `slot_claims`: the first run of a slot claims it; the runs refused or let through after it.
 * - `slot_counters`: the true counter behind `service_slots_total`, never lowered by pruning.
 * - `slot_backfills`: backfills asked for, and how far each has got; one unfinished per job.
 * - The outbox (migration 014) takes the ledger's alert events, `missed` and `late`, keyed by the
 *   subject `slot:<job id>:<slot>`: one alert per slot and destination.
 * - A run that arrives for a slot judged `missed` (a very late cluster Job) turns it `late`, with
 *   that run: the one exception to "written once", done by a trigger so that every path of
 *   recording does it. The same trigger gives a slot judged on a claim alone (its run had not
 *   reported yet) the run's execution when it arrives.
 */
/**
 * The lock that orders the judge's reading of a slot's evidence with the recording of a run for
 * it (see the trigger below). Arbitrary and fixed; other than the other keys (store/migrate.ts,
 * runtime/local/leadership.ts).
 */
export const SLOT_EVIDENCE_LOCK_KEY = 7433_0017;

/** The reason of a slot judged `missed` that a run (or a claim) turned `late`. */
export const TURNED_LATE_REASON = 'judged missed, then a run for it started late';

export const slotLedgerSchema = `
ALTER TABLE jobs ADD COLUMN late_after_s integer NOT NULL DEFAULT 60;
ALTER TABLE jobs ADD COLUMN catch_up jsonb;
ALTER TABLE jobs ADD COLUMN allow_duplicate_slots boolean NOT NULL DEFAULT false;
CREATE TRIGGER jobs_slot_fields_updated_bump_version
  AFTER UPDATE OF late_after_s, catch_up, allow_duplicate_slots ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('job_definitions');

ALTER TABLE executions ADD COLUMN scheduled_at timestamptz;
ALTER TABLE executions ADD COLUMN trigger text CHECK (trigger IN ('schedule', 'catchUp', 'backfill'));
CREATE INDEX executions_slot ON executions (job_id, scheduled_at) WHERE scheduled_at IS NOT NULL;
-- The last success of each job (service_job_last_success_timestamp_seconds), one probe per job.
CREATE INDEX executions_job_success ON executions (job_id, started_at DESC) WHERE status = 'success';

CREATE TABLE slot_cursors (
  job_id             integer PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  judged_until       timestamptz NOT NULL,
  due_at             timestamptz,
  schedule           text NOT NULL,
  timezone           text,
  late_after_s       integer NOT NULL DEFAULT 60,
  earlier_schedules  jsonb NOT NULL DEFAULT '[]',
  last_slot_at       timestamptz,
  last_outcome       text
);
CREATE INDEX slot_cursors_due ON slot_cursors (due_at NULLS FIRST);
INSERT INTO slot_cursors (job_id, judged_until, schedule, timezone)
  SELECT id, now(), schedule, timezone FROM jobs;
-- The job list shows each job's last slot.
CREATE TRIGGER slot_cursors_bump_jobs_version
  AFTER UPDATE OF last_slot_at, last_outcome ON slot_cursors
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('jobs');

CREATE TABLE slots (
  job_id         integer NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  scheduled_at   timestamptz NOT NULL,
  outcome        text NOT NULL
    CHECK (outcome IN ('ran', 'late', 'skipped', 'suspended', 'paused', 'missed', 'duplicate')),
  execution_ids  bigint[] NOT NULL DEFAULT '{}',
  started_at     timestamptz,
  delay_ms       bigint,
  reason         text,
  judged_at      timestamptz NOT NULL,
  PRIMARY KEY (job_id, scheduled_at)
);

CREATE TABLE slot_holds (
  id        bigserial PRIMARY KEY,
  job_id    integer REFERENCES jobs(id) ON DELETE CASCADE,
  kind      text NOT NULL CHECK (kind IN ('suspended', 'paused')),
  from_at   timestamptz NOT NULL,
  until_at  timestamptz,
  reason    text
);
CREATE INDEX slot_holds_job ON slot_holds (job_id, from_at);
CREATE UNIQUE INDEX slot_holds_open ON slot_holds (coalesce(job_id, 0), kind) WHERE until_at IS NULL;
INSERT INTO slot_holds (job_id, kind, from_at, reason)
  SELECT id, 'suspended', now(),
    CASE WHEN enabled THEN 'the job was suspended by its alert policy: ' || suspended_reason
         ELSE 'the job was disabled at that time' END
  FROM jobs WHERE NOT enabled OR suspended_reason IS NOT NULL;
INSERT INTO slot_holds (job_id, kind, from_at, until_at, reason)
  SELECT NULL, 'paused', now(), paused_until, 'the scheduler was paused at that time'
  FROM scheduler_state WHERE paused AND (paused_until IS NULL OR paused_until > now());

CREATE TABLE slot_claims (
  job_id          integer NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  scheduled_at    timestamptz NOT NULL,
  run_key         text NOT NULL,
  claimed_at      timestamptz NOT NULL,
  duplicate_keys  text[] NOT NULL DEFAULT '{}',
  prevented_keys  text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (job_id, scheduled_at)
);

CREATE TABLE slot_counters (
  outcome  text PRIMARY KEY,
  total    bigint NOT NULL DEFAULT 0
);
INSERT INTO slot_counters (outcome)
  VALUES ('ran'), ('late'), ('skipped'), ('suspended'), ('paused'), ('missed'), ('duplicate');

CREATE TABLE slot_backfills (
  id            bigserial PRIMARY KEY,
  job_id        integer NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  slots         timestamptz[] NOT NULL,
  concurrency   integer NOT NULL,
  started       integer NOT NULL DEFAULT 0,
  requested_at  timestamptz NOT NULL,
  finished_at   timestamptz
);
CREATE UNIQUE INDEX slot_backfills_unfinished ON slot_backfills (job_id) WHERE finished_at IS NULL;

ALTER TABLE alert_outbox DROP CONSTRAINT alert_outbox_event_check;
ALTER TABLE alert_outbox ADD CONSTRAINT alert_outbox_event_check CHECK (event IN
  ('success', 'failed', 'timeout', 'recovered', 'overrun', 'tooFast', 'suspended', 'missed', 'late'));

-- A run recorded for a slot already judged completes it. The judge holds this lock (exclusively)
-- while it reads a slot's evidence and writes its outcome, and a recording of runs with a slot
-- takes it shared: a run is then either seen by the judge or finds the slot it judged, never
-- neither.
-- - A slot judged missed turns late, with the run (its first, should several arrive at once).
-- - A slot a claim turned late (store/slots.ts claimSlot) takes its run's execution, start and
--   delay: the claim's time stood for the start only until the run was known.
-- - A slot judged on claims before its runs were recorded (a run longer than the grace) gains their
--   executions, as many as the claims let run; its judgement, start and delay stand.
CREATE FUNCTION slot_run_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows WHERE scheduled_at IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(${SLOT_EVIDENCE_LOCK_KEY});
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
CREATE TRIGGER executions_slot_run_arrived
  AFTER INSERT ON executions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION slot_run_arrived();
`;
