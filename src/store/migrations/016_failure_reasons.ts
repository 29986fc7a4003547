/**
 * Why a run failed (issue 21).
 *
 * - `executions.reason`, `reason_message`: why an attempt ended as it did, where its status and
 *   exit code do not say it (a signal, a timeout, OOMKilled, Evicted, ImagePullBackOff...); null
 *   for a plain success or a plain non-zero exit.
 * - `executions_job_failures`: a job's latest failure (the ScheduledJob's `lastFailureTime`) found
 *   at once, however many successes came after it. Failures are few, so the index is small.
 * - `cluster_runs.reason`, `reason_message`: what the controller saw of a run's pods (OOMKilled,
 *   Evicted, ImagePullBackOff...), which the pod's own report cannot know. The run's final
 *   execution takes it, whichever of the two arrives first.
 * - `cluster_runs.closing_key`: the report key of the execution that closed the run (its final
 *   report, or the controller's record), so a reason that arrives later finds that execution.
 * - `claim_job_cluster_runs` answers the reason and the closing key too (same locks, same read).
 * - The executions list shows the reason: a reason given to an execution later (by the controller)
 *   bumps the list's version, as any change of a listed field does (migrations 006, 009).
 */
export const failureReasonsSchema = `
ALTER TABLE executions ADD COLUMN reason text;
ALTER TABLE executions ADD COLUMN reason_message text;
CREATE INDEX executions_job_failures ON executions (job_id, started_at DESC, id DESC)
  WHERE status IN ('failed', 'timeout');

ALTER TABLE cluster_runs ADD COLUMN reason text;
ALTER TABLE cluster_runs ADD COLUMN reason_message text;
ALTER TABLE cluster_runs ADD COLUMN closing_key text;

DROP FUNCTION claim_job_cluster_runs(text[]);
CREATE FUNCTION claim_job_cluster_runs(uids text[])
  RETURNS TABLE (run_uid text, job_id integer, closed_by text, seen_by_controller boolean,
                 reason text, reason_message text, closing_key text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('cluster-run:' || uid)) FROM unnest(uids) AS uid;
  RETURN QUERY
    SELECT c.run_uid, c.job_id, c.closed_by, c.seen_by_controller, c.reason, c.reason_message, c.closing_key
      FROM unnest(uids) AS u(uid) JOIN cluster_runs c ON c.run_uid = u.uid;
END
$$;

CREATE OR REPLACE FUNCTION bump_execution_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN
    touched := EXISTS (SELECT 1 FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    touched := EXISTS (SELECT 1 FROM old_rows);
  ELSE
    touched := EXISTS (
      SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.job_id, o.job_name, o.status, o.started_at, o.finished_at, o.duration_ms, o.exit_code, o.attempt,
             o.reason, o.reason_message)
        IS DISTINCT FROM (n.job_id, n.job_name, n.status, n.started_at, n.finished_at, n.duration_ms, n.exit_code,
                          n.attempt, n.reason, n.reason_message));
  END IF;
  IF touched THEN
    PERFORM bump_version_slot('executions');
  END IF;
  RETURN NULL;
END
$$;
`;
