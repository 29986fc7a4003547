/**
 * What lets replicas of `crondeck serve` on one database hand changes to the one that fires jobs
 * (the leader, see src/runtime/local/leadership.ts):
 *
 * - a version of the scheduler switch, bumped like the lists' versions of migration 004, so the
 *   leader notices a pause or resume made through another replica by reading one row;
 * - run requests: "run this job now" asked of a replica that does not fire jobs, kept until the
 *   leader takes them, so a request made while leadership changes hands is not lost.
 */
export const runtimeSyncSchema = `
INSERT INTO list_versions (name) VALUES ('scheduler');
CREATE TRIGGER scheduler_state_bump_list_version
  AFTER INSERT OR UPDATE OR DELETE ON scheduler_state
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('scheduler');

CREATE TABLE run_requests (
  id            bigserial PRIMARY KEY,
  job_id        integer NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  requested_at  timestamptz NOT NULL DEFAULT now()
);
`;
