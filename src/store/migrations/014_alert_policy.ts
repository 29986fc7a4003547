/**
 * Alert policies (docs/alert-policy.md): when a job's alerts are sent, and what they raise besides the
 * spec's three events.
 *
 * - `alert_configs.policy`: the job's policy, null for none (alerts as the spec says).
 * - `alert_policy_state`: what a policy needs to remember between runs, written in the transaction
 *   that records the run, so a restart neither forgets a streak nor alerts twice.
 * - `jobs.suspended_reason`: a job the policy suspended after failing runs; it fires no more until
 *   a person switches it on or runs it. Its own column, beside `enabled`: on a cluster the user's
 *   `spec.suspend` stays what the user wrote.
 * - The outbox takes events that are not about a finished execution (an overrun, a suspension):
 *   its rows are keyed by a subject (`execution:<id>`, `recovered:<id>`, `overrun:<run>`...) rather
 *   than by an execution, so each is queued once per destination. Alerts a policy held back are
 *   kept as rows too, `muted` (a maintenance window) or `suppressed` (a threshold, a reminder
 *   interval), with a note saying why: they are the history that shows what was not sent.
 */
export const alertPolicySchema = `
ALTER TABLE alert_configs ADD COLUMN policy jsonb;

CREATE TABLE alert_policy_state (
  job_id                      integer PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  -- Failed runs in a row (final attempts; a success ends the streak).
  consecutive_failures        integer NOT NULL DEFAULT 0,
  -- The same streak, counted again from zero when a person resumed the suspended job.
  failures_toward_suspension  integer NOT NULL DEFAULT 0,
  failing_since               timestamptz,
  -- A failure alert of this streak went out (not muted, not suppressed): a success then recovers.
  alerted_failure             boolean NOT NULL DEFAULT false,
  last_alert_at               timestamptz,
  -- The last run an overrun was raised for: it is not looked at again.
  overrun_subject             text
);

ALTER TABLE jobs ADD COLUMN suspended_reason text;
ALTER TABLE jobs ADD COLUMN suspended_at timestamptz;
-- A suspension is a change of the job's definition: other replicas' schedulers reload it.
DROP TRIGGER jobs_definitions_updated_bump_version ON jobs;
CREATE TRIGGER jobs_definitions_updated_bump_version
  AFTER UPDATE OF id, name, schedule, command, timeout_s, retry, description, tags, timezone, enabled,
    source, created_at, updated_at, resource_namespace, resource_name, resource_uid,
    suspended_reason, suspended_at ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('job_definitions');

ALTER TABLE alert_outbox ALTER COLUMN execution_id DROP NOT NULL;
ALTER TABLE alert_outbox ADD COLUMN subject text;
UPDATE alert_outbox SET subject = 'execution:' || execution_id;
ALTER TABLE alert_outbox ALTER COLUMN subject SET NOT NULL;
ALTER TABLE alert_outbox DROP CONSTRAINT alert_outbox_execution_id_channel_destination_key;
ALTER TABLE alert_outbox ADD CONSTRAINT alert_outbox_subject_destination UNIQUE (subject, channel, destination);
ALTER TABLE alert_outbox DROP CONSTRAINT alert_outbox_event_check;
ALTER TABLE alert_outbox ADD CONSTRAINT alert_outbox_event_check
  CHECK (event IN ('success', 'failed', 'timeout', 'recovered', 'overrun', 'tooFast', 'suspended'));
ALTER TABLE alert_outbox DROP CONSTRAINT alert_outbox_state_check;
ALTER TABLE alert_outbox ADD CONSTRAINT alert_outbox_state_check
  CHECK (state IN ('pending', 'delivered', 'failed', 'muted', 'suppressed'));
ALTER TABLE alert_outbox ADD COLUMN note text;
-- A job's alert history, newest first.
CREATE INDEX alert_outbox_job ON alert_outbox (job_id, id DESC);
`;
