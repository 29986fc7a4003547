import { claimClusterRuns } from '../../src/store/clusterRuns';
import { type Database, type Queryable, withTransaction } from '../../src/store/database';
import { createTestDatabase } from '../support/database';

/**
 * Every pod report claims its run (`claim_job_cluster_runs`, migrations 020 and 021), and the claim
 * must read `cluster_runs` through its primary key whatever the table's statistics say: a plan
 * that reads the whole table for each batch of reports made recording fall with the table's size
 * on a new installation (docs/benchmarks/where-the-time-goes.md). A small table just analysed is
 * where a planner left to itself reads the whole table instead, and keeps that plan as it grows.
 */
describe('claiming cluster runs', () => {
  let db: Database;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(
      `INSERT INTO cluster_runs (run_uid, job_id, closed_by)
       SELECT 'run-' || n, n % 7, CASE WHEN n % 2 = 0 THEN 'report' END FROM generate_series(1, 40) AS n`,
    );
    // Statistics that say the table is one page: reading it whole looks cheaper than the index.
    await db.pool.query('ANALYZE cluster_runs');
  });
  afterAll(async () => {
    await db.close();
  });

  it('reads each run through the primary key, even where its statistics make a full read look cheaper', async () => {
    // The connection's reads of the table so far (counters not yet flushed included).
    const reads = async (tx: Queryable) =>
      (
        await tx.query<{ seq_scan: string; idx_scan: string }>(
          `SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'cluster_runs'`,
        )
      ).rows.map((row) => ({ sequential: Number(row.seq_scan), byIndex: Number(row.idx_scan) }))[0]!;
    const { before, after } = await withTransaction(db.pool, async (tx) => {
      const before = await reads(tx);
      const claims = await claimClusterRuns(tx, ['run-2', 'run-3', 'run-99']);
      expect(claims.map((claim) => [claim.runUid, claim.jobId, claim.closedBy])).toEqual([
        ['run-2', 2, 'report'],
        ['run-3', 3, null],
      ]);
      return { before, after: await reads(tx) };
    });
    expect(after.sequential - before.sequential).toBe(0);
    expect(after.byIndex - before.byIndex).toBe(3);
  });
});
