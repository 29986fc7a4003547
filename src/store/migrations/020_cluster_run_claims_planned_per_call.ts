/**
 * `claim_job_cluster_runs` (migrations 011, 016) looks each run up by its primary key, in a
 * statement planned at each call. Before, it joined the runs' uids to `cluster_runs` in a
 * statement PL/pgSQL plans once per connection (the service's connections live long), and the
 * plan followed the table's statistics: on a new installation, before autovacuum had analysed the
 * table, PostgreSQL chose to read all of it for every batch of reports (in 7 s of pod reports on a
 * fresh database, 3,239 full reads, 22 million rows: 1,962 recordings/s; the same join planned per
 * call was read whole as often: 2,437/s), against 3,152 to 3,357/s with the lookups. Each uid's
 * rows are now read by a subquery of its own (`OFFSET 0` keeps the planner from merging it into a
 * join), an equality on the key's first column, which the primary key answers however big the
 * table is and whatever its statistics say.
 */
export const clusterRunClaimsPlannedPerCallSchema = `
CREATE OR REPLACE FUNCTION claim_job_cluster_runs(uids text[])
  RETURNS TABLE (run_uid text, job_id integer, closed_by text, seen_by_controller boolean,
                 reason text, reason_message text, closing_key text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('cluster-run:' || uid)) FROM unnest(uids) AS uid;
  RETURN QUERY EXECUTE
    'SELECT c.run_uid, c.job_id, c.closed_by, c.seen_by_controller, c.reason, c.reason_message, c.closing_key
       FROM unnest($1) AS u(uid)
       CROSS JOIN LATERAL (SELECT * FROM cluster_runs r WHERE r.run_uid = u.uid OFFSET 0) c'
    USING uids;
END
$$;
`;
