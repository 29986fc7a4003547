/**
 * `GET /api/jobs/:id/slots` over a long ledger (issue 20): one job's 1,000,000 judged slots,
 * written straight into the slots table, read through the bench's service process with autocannon.
 * Used by bench/scenarios/slots.ts.
 */
import { Client } from 'pg';
import { type BenchContext, compareWithCeilings, formatNumber } from '../harness';
import { LIST_SLOTS_JSON_SQL } from '../../src/store/slots';

/** One slot every 5 s back from an hour ago: 1,000,000 of them reach 58 days back, inside the retention. */
const SLOT_SPACING_SECONDS = 5;

export interface SlotRead {
  label: string;
  path: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  items: number;
  bodyBytes: number;
  /** The same bytes from a minimal Express route and a bare node:http server, in the same run. */
  express: { requestsPerSec: number; p99Ms: number };
  http: { requestsPerSec: number; p99Ms: number };
  /** The service's statement alone, prepared with a generic plan as the service runs it. */
  sql: { p50Ms: number; p99Ms: number };
}

export interface SlotReads {
  reads: SlotRead[];
  /** EXPLAIN ANALYZE of the newest 1000, with a generic plan as the service's prepared statement. */
  plan: string;
}

/** The service's statement (store/slots.ts), which renders the page's JSON too. */
const LIST_SQL = LIST_SLOTS_JSON_SQL;

export async function measureSlotReads(ctx: BenchContext, slots: number): Promise<SlotReads> {
  const created = await fetch(`${ctx.serviceUrl}/api/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-long-ledger', schedule: '@yearly', command: 'true' }),
  });
  if (created.status !== 201)
    throw new Error(`POST /api/jobs answered ${created.status}: ${await created.text()}`);
  const jobId = ((await created.json()) as { id: number }).id;
  console.log(`  inserting ${formatNumber(slots)} slots of job ${jobId}`);
  // Mostly `ran` with their run, some of every other outcome, as a long-lived job's ledger looks.
  await ctx.sql(
    `INSERT INTO slots (job_id, scheduled_at, outcome, execution_ids, started_at, delay_ms, reason, judged_at)
     SELECT $1, t.at, t.outcome,
            CASE WHEN t.outcome IN ('ran', 'late') THEN ARRAY[t.i::bigint] ELSE '{}' END,
            CASE WHEN t.outcome IN ('ran', 'late') THEN t.at + t.delay * interval '1 ms' END,
            CASE WHEN t.outcome IN ('ran', 'late') THEN t.delay END,
            CASE t.outcome WHEN 'missed' THEN 'nothing started it: the service was not running, or no process was leading it, at that time'
                           WHEN 'skipped' THEN 'the previous run was still going'
                           WHEN 'late' THEN 'started 2 min after its time, past its grace of 1 min' END,
            t.at + interval '65 seconds'
     FROM (SELECT i,
                  date_trunc('second', now()) - interval '1 hour' - i * $2::int * interval '1 second' AS at,
                  CASE WHEN i % 97 = 0 THEN 'missed' WHEN i % 89 = 0 THEN 'skipped'
                       WHEN i % 53 = 0 THEN 'late' ELSE 'ran' END AS outcome,
                  CASE WHEN i % 53 = 0 THEN 120000 ELSE (i::bigint * 7919) % 900 END AS delay
           FROM generate_series(1, $3::int) AS i) t`,
    [jobId, SLOT_SPACING_SECONDS, slots],
  );
  await ctx.sql('VACUUM ANALYZE slots');
  const counted = await ctx.sql<{ n: number }>('SELECT count(*)::int AS n FROM slots WHERE job_id = $1', [
    jobId,
  ]);
  if (counted[0]!.n !== slots) throw new Error(`job ${jobId} has ${counted[0]!.n} slots, expected ${slots}`);

  // A page from the middle of the ledger, as the job page's "Older" asks for it.
  const middle = (
    await ctx.sql<{ at: Date }>(
      `SELECT scheduled_at AS at FROM slots WHERE job_id = $1 ORDER BY scheduled_at DESC OFFSET $2 LIMIT 1`,
      [jobId, Math.floor(slots / 2)],
    )
  )[0]!.at;
  const targets = [
    { label: 'newest 100 (the default)', path: `/api/jobs/${jobId}/slots`, items: 100, to: null },
    {
      label: 'newest 1000 (the most a request may ask)',
      path: `/api/jobs/${jobId}/slots?limit=1000`,
      items: 1000,
      to: null,
    },
    {
      label: `25 before the middle (\`to\` = slot ${formatNumber(Math.floor(slots / 2))})`,
      path: `/api/jobs/${jobId}/slots?to=${encodeURIComponent(middle.toISOString())}&limit=25`,
      items: 25,
      to: middle,
    },
  ];
  const reads: SlotRead[] = [];
  for (const target of targets) {
    const sample = await fetch(ctx.serviceUrl + target.path);
    const body = (await sample.json()) as unknown[];
    if (sample.status !== 200 || body.length !== target.items) {
      throw new Error(
        `GET ${target.path} answered ${sample.status} with ${body.length} items, expected ${target.items}`,
      );
    }
    const compared = await compareWithCeilings(ctx, `GET ${target.path}`, { path: target.path });
    const sql = await ctx.timeSql(
      LIST_SQL,
      [jobId, null, target.to, target.items],
      { iterations: 500 },
      'bench_list_slots',
    );
    reads.push({
      label: target.label,
      path: target.path,
      items: target.items,
      requestsPerSec: compared.service.requestsPerSec,
      p50Ms: compared.service.p50Ms,
      p99Ms: compared.service.p99Ms,
      non2xx: compared.service.non2xx,
      bodyBytes: compared.bodyBytes,
      express: { requestsPerSec: compared.express.requestsPerSec, p99Ms: compared.express.p99Ms },
      http: { requestsPerSec: compared.http.requestsPerSec, p99Ms: compared.http.p99Ms },
      sql,
    });
  }
  return { reads, plan: await genericPlanOf(ctx.databaseUrl, jobId) };
}

/** EXPLAIN ANALYZE of the newest 1000 as the service runs it: prepared, with a generic plan. */
async function genericPlanOf(databaseUrl: string, jobId: number): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query(
      `PREPARE bench_list_slots (integer, timestamptz, timestamptz, integer) AS ${LIST_SQL}`,
    );
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE bench_list_slots (${Math.trunc(jobId)}, NULL, NULL, 1000)`,
    );
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}
