/**
 * The scheduler's speed, as the foundation issue asks for it:
 *  - GET /api/jobs with 1,000 jobs, and GET /api/executions?limit=50 over 10k and over 1M
 *    executions, each against the two ceilings answering the same bytes;
 *  - executions recorded per second through the local runtime (in this process, with an attempt
 *    runner that returns at once, so what is measured is the recording path);
 *  - start-up time with an existing database and the idle service's resident memory.
 */
import { Client } from 'pg';
import type { Job } from '../../src/domain/job';
import {
  BAR,
  type BenchContext,
  type CeilingComparison,
  compareWithCeilings,
  comparisonTable,
  formatMegabytes,
  formatNumber,
  markdownTable,
  meetsBar,
  percentile,
  sleep,
  fromBuild,
} from '../harness';
import { instantCommand, startInProcessService } from '../inProcessService';
import { startShippedService } from '../shippedStart';

const { jobInputSchema } = fromBuild<typeof import('../../src/domain/job')>('domain/job');
const { ReportIngest } =
  fromBuild<typeof import('../../src/scheduling/reportIngest')>('scheduling/reportIngest');

const JOBS = 1_000;
const SMALL_HISTORY = 10_000;
const LARGE_HISTORY = 1_000_000;
const IDLE_RSS_LIMIT_BYTES = 150 * 1024 * 1024;
const STARTUP_LIMIT_MS = 2_000;
/** Jobs the recording measure cycles through: more than runs in flight, so one run per job. */
const RECORDING_JOBS = 64;
const RECORDING_BAR_PER_SECOND = 3_000;
const ONE_JOB_BAR_VS_HTTP = 0.7;

export async function run(ctx: BenchContext): Promise<void> {
  const lists: CeilingComparison[] = [];

  console.log(`  seeding ${JOBS} jobs`);
  await seedJobs(ctx);
  const listed = (await (await fetch(`${ctx.serviceUrl}/api/jobs`)).json()) as unknown[];
  if (listed.length !== JOBS) throw new Error(`GET /api/jobs listed ${listed.length} jobs, expected ${JOBS}`);
  lists.push(
    await compareWithCeilings(ctx, `GET /api/jobs (${formatNumber(JOBS)} jobs)`, { path: '/api/jobs' }),
  );

  const listPath = '/api/executions?limit=50';
  console.log(`  seeding ${formatNumber(SMALL_HISTORY)} executions`);
  await seedExecutions(ctx, 1, SMALL_HISTORY);
  const smallSql = await timeListSql(ctx);
  lists.push(
    await compareWithCeilings(ctx, `GET ${listPath} (${formatNumber(SMALL_HISTORY)} executions)`, {
      path: listPath,
    }),
  );

  console.log(`  seeding ${formatNumber(LARGE_HISTORY - SMALL_HISTORY)} more executions`);
  await seedExecutions(ctx, SMALL_HISTORY + 1, LARGE_HISTORY);
  const largeSql = await timeListSql(ctx);
  lists.push(
    await compareWithCeilings(ctx, `GET ${listPath} (${formatNumber(LARGE_HISTORY)} executions)`, {
      path: listPath,
    }),
  );
  const someJob = (await ctx.sql<{ id: number }>('SELECT id FROM jobs ORDER BY id LIMIT 1 OFFSET 7'))[0]!.id;
  const oneJob = await compareWithCeilings(
    ctx,
    `GET /api/jobs/:id (${formatNumber(LARGE_HISTORY)} executions)`,
    {
      path: `/api/jobs/${someJob}`,
    },
  );
  lists.push(oneJob);
  // Issues 12 and 22: 1.5 × cronbase's rate. Issue 22 measured cronbase at 0.47 × the bare
  // node:http ceiling of its run, so the bar is 0.7 × that ceiling. Issue 12, with no measure of
  // cronbase, had held it as 1.5 × the Express route, taking cronbase to be no faster than Express;
  // it is slower (Express answers 0.6 to 0.7 × the bare server here), so that stand-in asked about
  // 1.0 × the bare server: the ratio to Express is reported, the bar is the one translated from
  // cronbase's measured rate.
  ctx.bar({
    measure: 'GET /api/jobs/:id, × the bare node:http ceiling',
    target: `≥ ${ONE_JOB_BAR_VS_HTTP}, p99 < ${BAR.maxP99Ms} ms`,
    measured:
      `${oneJob.vsHttp.toFixed(2)} (${formatNumber(oneJob.service.requestsPerSec)} vs ` +
      `${formatNumber(oneJob.http.requestsPerSec)} req/s; ${oneJob.vsExpress.toFixed(2)} × the Express route), ` +
      `p99 ${oneJob.service.p99Ms.toFixed(2)} ms`,
    met: oneJob.vsHttp >= ONE_JOB_BAR_VS_HTTP && oneJob.service.p99Ms < BAR.maxP99Ms,
  });
  const byJobPath = `/api/executions?jobId=${someJob}&limit=50`;
  console.log(`  GET ${byJobPath}: service`);
  const byJob = await ctx.load({ path: byJobPath });

  const small = lists[1]!;
  const large = lists[2]!;
  ctx.report(
    'HTTP lists and one job',
    [
      comparisonTable(lists),
      '',
      `One job's history over ${formatNumber(LARGE_HISTORY)} executions, \`GET ${byJobPath}\` (service only): ` +
        `${formatNumber(byJob.requestsPerSec)} req/s, p50 ${byJob.p50Ms.toFixed(2)} ms, p99 ${byJob.p99Ms.toFixed(2)} ms, ${byJob.non2xx} non-2xx.`,
      '',
      `Executions list over ${formatNumber(LARGE_HISTORY)} vs ${formatNumber(SMALL_HISTORY)} rows: ` +
        `${(large.vsExpress / small.vsExpress).toFixed(2)} × the throughput ratio, ` +
        `p99 ${large.service.p99Ms.toFixed(2)} ms vs ${small.service.p99Ms.toFixed(2)} ms.`,
      '',
      "The bar against the `node:http` ceiling stands for issue 22's goal, 1.5 × cronbase 0.4.0's " +
        'rate for one job. cronbase (Bun and SQLite) is not installable here, so it was not measured: ' +
        "on the machine of that comparison it answered 28,714 req/s against that run's bare `node:http` " +
        `61,427, 0.47 × the ceiling, and 1.5 × that is the ${ONE_JOB_BAR_VS_HTTP} × of the bar. ` +
        'The reads are plain ones, as a polling dashboard sends: a read may then miss a write another ' +
        'process committed in the last `SERVICE_READ_STALENESS_MS` (10 ms), never one of this service ' +
        '([Kept answers](docs/api.md#kept-answers)).',
    ].join('\n'),
  );
  ctx.report(
    'Scheduler: the executions list in SQL',
    [
      'The list query alone, straight to PostgreSQL (one connection, 500 runs):',
      '',
      markdownTable(
        ['executions', 'p50 ms', 'p99 ms'],
        [
          [formatNumber(SMALL_HISTORY), smallSql.p50Ms.toFixed(3), smallSql.p99Ms.toFixed(3)],
          [formatNumber(LARGE_HISTORY), largeSql.p50Ms.toFixed(3), largeSql.p99Ms.toFixed(3)],
        ],
      ),
      '',
      `Plan over ${formatNumber(LARGE_HISTORY)} rows:`,
      '',
      '```',
      await explainList(ctx),
      '```',
    ].join('\n'),
    { detail: true },
  );

  console.log('  executions recorded per second: pod reports, and runs of the local runtime');
  const reports = [await measureRecording(ctx, 'reports', 1), await measureRecording(ctx, 'reports', 16)];
  const runs = [await measureRecording(ctx, 'runs', 1), await measureRecording(ctx, 'runs', 16)];
  const sixteen = reports[1]!;
  ctx.bar({
    measure: 'executions recorded per second, 16 reports in flight (counter exact)',
    target: `≥ ${formatNumber(RECORDING_BAR_PER_SECOND)}`,
    measured: `${formatNumber(sixteen.perSecond)} (${sixteen.counterExact ? 'exact' : 'NOT exact'})`,
    met: sixteen.perSecond >= RECORDING_BAR_PER_SECOND && sixteen.counterExact,
  });
  ctx.report(
    'Executions recorded per second',
    [
      'In-process `startService` on a database of its own (64 jobs), keeping N recordings in flight: a new one ' +
        'starts whenever one is recorded. Executions that finish while a recording transaction is under way ' +
        'are recorded together in the next one (group commit).',
      '',
      "- **pod reports**: each is a pod's final report of a cluster run, through the report ingest that " +
        '`POST /api/jobs/:id/reports` calls (the job read, the claim on the run under its advisory lock, the ' +
        "row, the durable counter, the job's last run and the alert outbox, in one transaction), without HTTP.",
      '- **local runs**: `runtime.runNow` with an attempt runner that returns at once: the check that the job ' +
        'is not running, the running row, then the transaction that finishes it.',
      '',
      markdownTable(
        [
          'recordings',
          'in flight',
          'executions/s',
          'executions',
          'seconds',
          'rows in the database',
          'counter = rows',
        ],
        [...reports, ...runs].map((r) => [
          r.source === 'reports' ? 'pod reports' : 'local runs',
          String(r.inFlight),
          formatNumber(r.perSecond),
          formatNumber(r.recorded),
          r.seconds.toFixed(1),
          formatNumber(r.rows),
          r.counterExact ? 'yes' : '**no**',
        ]),
      ),
    ].join('\n'),
  );

  console.log('  start-up with an existing database, idle memory');
  const startup = await measureStartup(ctx);
  ctx.report(
    'Start-up and memory',
    [
      `A fresh \`node dist/cli.js serve\` on the database seeded above (${formatNumber(JOBS)} jobs, ` +
        `${formatNumber(LARGE_HISTORY)}+ executions, migrations applied). Start-up is the time from spawn ` +
        'to the first 200 on /health; idle RSS is read 2 s after a few requests to each endpoint.',
      '',
      markdownTable(
        ['measure', 'value', 'bar', ''],
        [
          [
            `start-up, median of ${startup.times.length}`,
            `${startup.medianMs.toFixed(0)} ms (max ${startup.maxMs.toFixed(0)} ms)`,
            `< ${STARTUP_LIMIT_MS} ms`,
            startup.maxMs < STARTUP_LIMIT_MS ? 'met' : '**missed**',
          ],
          [
            'idle RSS',
            formatMegabytes(startup.idleRssBytes),
            `< ${formatMegabytes(IDLE_RSS_LIMIT_BYTES)}`,
            startup.idleRssBytes < IDLE_RSS_LIMIT_BYTES ? 'met' : '**missed**',
          ],
        ],
      ),
    ].join('\n'),
  );

  const misses = lists.filter((c) => !meetsBar(c)).map((c) => c.label);
  ctx.report(
    'Bar',
    misses.length === 0
      ? `Both list endpoints meet the first bar (≥ ${BAR.minRatioToExpress} × the Express route, p99 < ${BAR.maxP99Ms} ms at 10 connections).`
      : `Missed the first bar (≥ ${BAR.minRatioToExpress} × the Express route, p99 < ${BAR.maxP99Ms} ms): ${misses.join('; ')}.`,
  );
}

/**
 * Jobs as people write them: daily schedules spread over the day (so none of them fires during a
 * run), some in a time zone, some with retries and timeouts, one in ten disabled.
 */
async function seedJobs(ctx: BenchContext): Promise<void> {
  await ctx.sql(
    `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled)
     SELECT 'bench-job-' || lpad(i::text, 4, '0'),
            (i % 60) || ' ' || (i % 24) || ' * * ' || CASE WHEN i % 4 = 0 THEN '1-5' ELSE '*' END,
            'echo "bench job ' || i || '" && sleep 0',
            CASE WHEN i % 3 = 0 THEN 300 ELSE 0 END,
            CASE WHEN i % 4 = 0 THEN '{"maxAttempts": 2, "baseDelay": 5}'::jsonb END,
            'Benchmark job number ' || i || ', seeded by bench/scenarios/scheduler.ts',
            jsonb_build_array('bench', 'team-' || (i % 7)),
            CASE WHEN i % 5 = 0 THEN 'Europe/Berlin' END,
            i % 10 <> 0
     FROM generate_series(1, $1::int) AS i`,
    [JOBS],
  );
}

/**
 * Executions numbered `from`..`to`, one every 2 s going back from now (so 1M reach ~23 days back,
 * inside the 90-day retention), spread over the jobs, mostly successes, with some output.
 */
async function seedExecutions(ctx: BenchContext, from: number, to: number): Promise<void> {
  await ctx.sql(
    `WITH j AS (SELECT id, name, (row_number() OVER (ORDER BY id) - 1)::int AS k FROM jobs),
          n AS (SELECT count(*)::int AS jobs FROM jobs)
     INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code,
                             stdout, stderr, attempt)
     SELECT j.id, j.name, s.status, s.started_at, s.started_at + s.duration_ms * interval '1 ms',
            s.duration_ms,
            CASE s.status WHEN 'success' THEN 0 WHEN 'failed' THEN 1 WHEN 'timeout' THEN 143 ELSE -1 END,
            CASE WHEN s.status = 'success' THEN 'processed ' || s.i || E' items\\n' ELSE '' END,
            CASE s.status WHEN 'failed' THEN E'error: upstream answered 503\\n'
                          WHEN 'skipped' THEN E'skipped: the previous run of this job was still in progress\\n'
                          ELSE '' END,
            CASE WHEN s.status = 'failed' THEN s.i % 3 ELSE 0 END
     FROM (SELECT i,
                  CASE WHEN i % 97 = 0 THEN 'timeout' WHEN i % 89 = 0 THEN 'skipped'
                       WHEN i % 13 = 0 THEN 'failed' ELSE 'success' END AS status,
                  now() - i * interval '2 seconds' AS started_at,
                  ((i::bigint * 7919) % 30000)::int AS duration_ms
           FROM generate_series($1::int, $2::int) AS i) s
     CROSS JOIN n
     JOIN j ON j.k = s.i % n.jobs`,
    [from, to],
  );
  await ctx.sql('VACUUM ANALYZE executions');
}

const LIST_SQL = `SELECT id, job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, attempt
  FROM executions WHERE status <> 'running' ORDER BY started_at DESC, id DESC LIMIT $1`;

function timeListSql(ctx: BenchContext): Promise<{ p50Ms: number; p99Ms: number }> {
  return ctx.timeSql(LIST_SQL, [50], { iterations: 500 });
}

async function explainList(ctx: BenchContext): Promise<string> {
  const rows = await ctx.sql<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${LIST_SQL.replace('$1', '50')}`,
  );
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

type RecordingSource = 'reports' | 'runs';

interface RecordingResult {
  source: RecordingSource;
  inFlight: number;
  recorded: number;
  seconds: number;
  perSecond: number;
  rows: number;
  /** service_executions_total's success counter equals the success rows. */
  counterExact: boolean;
}

/**
 * Records executions for a few seconds with `inFlight` at a time, from pod reports or from runs of
 * the local runtime: a new one starts whenever one is recorded. Counted twice: by the recorder's
 * listener, and as rows in the database.
 */
async function measureRecording(
  ctx: BenchContext,
  source: RecordingSource,
  inFlight: number,
  seconds = 4,
): Promise<RecordingResult> {
  const instant = instantCommand('ok\n');
  const databaseUrl = await ctx.freshDatabase('crondeck_recording');
  const service = await startInProcessService(databaseUrl, { local: { autoTick: false, execute: instant } });
  try {
    // A service of its own on a database of its own, so that it leads and fires these runs itself.
    for (let i = 0; i < RECORDING_JOBS; i++) {
      await service.jobs.create(
        jobInputSchema.parse({ name: `rec-${i}`, schedule: '@yearly', command: 'true' }),
      );
    }
    const jobs: Job[] = await service.jobs.list();
    let next = 0;
    let recorded = 0;
    let measuring = false;
    let open = true;
    let refusals = 0;
    // A refused start (the job's previous run not yet cleared) is replaced by the next job's.
    const inFlightNow = new Set<Promise<unknown>>();
    const relaunch = (): void => {
      if (!open) return;
      const launched = launch().catch((error: unknown) => {
        if (refusals++ === 0) console.log(`    a recording was refused: ${String(error)}`);
        relaunch();
      });
      inFlightNow.add(launched);
      void launched.finally(() => inFlightNow.delete(launched));
    };
    const ingest = new ReportIngest(service.recorder);
    const launch = (): Promise<unknown> => {
      const job = jobs[next++ % jobs.length]!;
      if (source === 'runs') return service.runtime.runNow(job);
      const now = new Date();
      const uid = `bench-${next}`;
      return ingest.record(job.id, {
        ...{ runUid: uid, podUid: uid, attempt: 0, final: true },
        ...{ status: 'success', exitCode: 0, stdout: 'ok\n', stderr: '', startedAt: now, finishedAt: now },
      });
    };
    service.recorder.subscribe(() => {
      if (measuring) recorded++;
      if (open) relaunch();
    });
    for (let i = 0; i < inFlight; i++) relaunch();
    await sleep(1000); // warm-up
    const database = new Client({ connectionString: databaseUrl });
    await database.connect();
    const count = async (text: string, values: unknown[] = []) =>
      (await database.query<{ n: string }>(text, values)).rows[0]!.n;
    const firstId = await count('SELECT coalesce(max(id), 0)::text AS n FROM executions');
    measuring = true;
    const start = performance.now();
    await sleep(seconds * 1000);
    measuring = false;
    const elapsed = (performance.now() - start) / 1000;
    open = false;
    // Reports still in flight land before the rows and the counter are read.
    while (inFlightNow.size > 0) await Promise.allSettled([...inFlightNow]);
    await service.local!.idle();
    const rows = Number(
      await count("SELECT count(*)::text AS n FROM executions WHERE id > $1 AND status <> 'running'", [
        firstId,
      ]),
    );
    // The true counter: every execution recorded, counted once, summed over its slots.
    const counted = Number(
      await count("SELECT sum(total)::text AS n FROM execution_counters WHERE status = 'success'"),
    );
    const allRows = Number(
      await count("SELECT count(*)::text AS n FROM executions WHERE status = 'success'"),
    );
    await database.end();
    return {
      source,
      inFlight,
      recorded,
      seconds: elapsed,
      perSecond: recorded / elapsed,
      rows,
      counterExact: counted === allRows,
    };
  } finally {
    await service.stop();
  }
}

/** Start-up time of a fresh service process, three times; idle RSS of the last one. */
async function measureStartup(
  ctx: BenchContext,
): Promise<{ times: number[]; medianMs: number; maxMs: number; idleRssBytes: number }> {
  const times: number[] = [];
  let idleRssBytes = NaN;
  for (let i = 0; i < 3; i++) {
    const service = await startShippedService({ databaseUrl: ctx.databaseUrl, name: 'service-startup' });
    try {
      times.push(service.startupMs);
      if (i === 2) {
        for (const path of ['/api/jobs', '/api/executions?limit=50', '/api/stats', '/health', '/metrics']) {
          for (let n = 0; n < 5; n++) await (await fetch(service.url + path)).arrayBuffer();
        }
        await sleep(2000);
        idleRssBytes = service.rssBytes();
      }
    } finally {
      await service.stop();
    }
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { times, medianMs: percentile(sorted, 0.5), maxMs: sorted[sorted.length - 1]!, idleRssBytes };
}
