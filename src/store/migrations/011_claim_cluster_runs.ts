/**
 * Claims cluster runs in one round trip: takes the runs' advisory locks in the order given, then
 * reads who had closed each. A function, because in READ COMMITTED each statement inside a
 * volatile function sees what was committed before it began: the read comes after the locks and
 * sees what their previous holders committed, which one statement that both locks and reads (its
 * snapshot taken before it waited) would not.
 */
export const claimClusterRunsSchema = `
CREATE FUNCTION claim_cluster_runs(uids text[]) RETURNS TABLE (run_uid text, closed_by text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('cluster-run:' || uid)) FROM unnest(uids) AS uid;
  RETURN QUERY
    SELECT c.run_uid, c.closed_by FROM unnest(uids) AS u(uid) JOIN cluster_runs c ON c.run_uid = u.uid;
END
$$;
`;
