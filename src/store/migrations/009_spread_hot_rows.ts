/**
 * Every recorded execution bumps the same few rows: its status's counter and the versions of the
 * executions and jobs lists. Each transaction holds those row locks until it commits, so recording
 * was serialized on them (about 900 executions/s whether 1 or 16 were in flight). Each of these
 * rows becomes HOT_SLOTS rows: a transaction bumps the slot of its own connection
 * (`hot_slot()`, from the backend's pid), so concurrent connections rarely wait on each other, and
 * readers sum the slots.
 *
 * A sum of slots that only grow changes whenever any slot does, so a list version read as a sum
 * still changes with every write, and a counter read as a sum still counts each execution once.
 * A list added later inserts a row per slot.
 */
const HOT_SLOTS = 16;

export const spreadHotRowsSchema = `
CREATE FUNCTION hot_slot() RETURNS smallint LANGUAGE sql STABLE AS
  'SELECT (pg_backend_pid() % ${HOT_SLOTS})::smallint';

-- Counters: one row per status and slot.
ALTER TABLE execution_counters ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE execution_counters DROP CONSTRAINT execution_counters_pkey;
ALTER TABLE execution_counters ADD PRIMARY KEY (status, slot);
INSERT INTO execution_counters (status, slot, total)
  SELECT status, slot, 0
    FROM (SELECT DISTINCT status FROM execution_counters) statuses,
         generate_series(1, ${HOT_SLOTS - 1}) AS slot;

-- List versions: one row per list and slot.
ALTER TABLE list_versions ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE list_versions DROP CONSTRAINT list_versions_pkey;
ALTER TABLE list_versions ADD PRIMARY KEY (name, slot);
INSERT INTO list_versions (name, slot, version)
  SELECT name, slot, 0
    FROM (SELECT DISTINCT name FROM list_versions) lists,
         generate_series(1, ${HOT_SLOTS - 1}) AS slot;

CREATE FUNCTION bump_version_slot(list text) RETURNS void LANGUAGE sql AS
  'UPDATE list_versions SET version = version + 1 WHERE name = list AND slot = hot_slot()';

-- The triggers of migrations 004 and 006, bumping one slot instead of the one row.
CREATE OR REPLACE FUNCTION bump_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_version_slot(TG_ARGV[0]);
  RETURN NULL;
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
      WHERE (o.job_id, o.job_name, o.status, o.started_at, o.finished_at, o.duration_ms, o.exit_code, o.attempt)
        IS DISTINCT FROM (n.job_id, n.job_name, n.status, n.started_at, n.finished_at, n.duration_ms, n.exit_code, n.attempt));
  END IF;
  IF touched THEN
    PERFORM bump_version_slot('executions');
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION bump_jobs_list_version_for_runs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN
    touched := EXISTS (SELECT 1 FROM new_rows WHERE status = 'running');
  ELSIF TG_OP = 'DELETE' THEN
    touched := EXISTS (SELECT 1 FROM old_rows WHERE status = 'running');
  ELSE
    touched := EXISTS (
      SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.status = 'running' OR n.status = 'running')
        AND (o.status, o.job_id, o.started_at, o.attempt) IS DISTINCT FROM (n.status, n.job_id, n.started_at, n.attempt));
  END IF;
  IF touched THEN
    PERFORM bump_version_slot('jobs');
  END IF;
  RETURN NULL;
END
$$;
`;
