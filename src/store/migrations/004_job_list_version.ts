/**
 * A version number of the whole job list, bumped in the same transaction as any write to `jobs`
 * (a statement-level trigger, so also by bulk SQL, cascades and other replicas). Reading one row
 * tells whether a job list rendered earlier is still exactly what a fresh read would give; the
 * rows themselves are read only when it changed.
 */
export const jobListVersionSchema = `
CREATE TABLE job_list_version (
  id       integer PRIMARY KEY CHECK (id = 1),
  version  bigint NOT NULL
);
INSERT INTO job_list_version (id, version) VALUES (1, 0);

CREATE FUNCTION bump_job_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE job_list_version SET version = version + 1 WHERE id = 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_bump_list_version
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_job_list_version();
`;
