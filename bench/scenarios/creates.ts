/**
 * `POST /api/jobs` at the durability of a production database: a PostgreSQL server of its own with
 * fsync, synchronous_commit and full_page_writes on (the bench's shared server has them off), and
 * `crondeck serve` on it; against, in the same run and on the same disk:
 *
 * - the bar: a stand-in for cronbase 0.4.0 (bench/standins/), the Bun + SQLite scheduler issue 22
 *   compares Crondeck with, committing and flushing each job alone as cronbase does;
 * - for reference, a bare `node:http` server that appends each request's body to a file and flushes
 *   it (`fdatasync`) before answering, one write at a time: the yardstick before the stand-in. It is
 *   not an upper bound of such a store: a flush that also commits the file's new size costs more
 *   than SQLite's, whose write-ahead log is rewritten in place.
 *
 * Also the same creations on the bench's server with fsync off, as earlier figures were measured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import {
  type BenchContext,
  DEFAULT_CONNECTIONS,
  formatNumber,
  LOAD_SECONDS,
  markdownTable,
  percentile,
  ROUNDS,
  startCeilingProcesses,
  startThrowawayPostgres,
  WARMUP_SECONDS,
} from '../harness';
import { describeShippedStart, startShippedService } from '../shippedStart';
import { describeSynchronous, startCronbaseStandIn } from '../standins/cronbase';

/** Issue 22's goal: at least cronbase's creations per second, at equal durability. */
const BAR_VS_CRONBASE = 1.0;
/**
 * Clients for the second look: a store that commits each job alone serves one at a time however
 * many wait, where group commit writes more jobs per flush the more arrive together.
 */
const MANY_CONNECTIONS = 50;

interface CreateRun {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  completed: number;
}

export async function run(ctx: BenchContext): Promise<void> {
  console.log('  a PostgreSQL server with fsync on');
  const durable = await startThrowawayPostgres({ durable: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-bench-flush-'));
  try {
    const settings = await readDurability(durable.databaseUrl);
    const service = await startShippedService({ databaseUrl: durable.databaseUrl, name: 'service-durable' });
    try {
      const created = await fetch(`${service.url}/api/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(jobBody('bench-create-sample')),
      });
      const body = Buffer.from(await created.arrayBuffer());
      if (created.status !== 201) throw new Error(`POST /api/jobs answered ${created.status}: ${body}`);
      const ceiling = await startCeilingProcesses(
        {
          path: '/api/jobs',
          method: 'POST',
          status: 201,
          contentType: 'application/json; charset=utf-8',
          body,
        },
        ['flushPerWriteCeiling.js'],
        { CEILING_DATA_DIR: dataDir },
      );
      const cronbase = await startCronbaseStandIn(dataDir);
      try {
        // Equal durability or no comparison: cronbase's settings flush every commit.
        if (cronbase.journalMode !== 'wal' || describeSynchronous(cronbase.synchronous) !== 'FULL') {
          throw new Error(
            `the cronbase stand-in runs with journal_mode=${cronbase.journalMode}, ` +
              `synchronous=${cronbase.synchronous}, not cronbase's WAL with synchronous=FULL`,
          );
        }
        const commitsBefore = await commits(durable.databaseUrl);
        const targets = [
          { name: 'service', url: service.url },
          { name: 'cronbase stand-in', url: cronbase.url },
          { name: 'flush per write', url: ceiling.urls[0]! },
        ];
        for (const target of targets) await createFor(target.url, `warm-${target.name}`, WARMUP_SECONDS);
        const samples: CreateRun[][] = targets.map(() => []);
        for (let round = 1; round <= ROUNDS; round++) {
          for (const [i, target] of targets.entries()) {
            console.log(`  POST /api/jobs, fsync on: ${target.name}, round ${round} of ${ROUNDS}`);
            samples[i]!.push(await createFor(target.url, `r${round}`, LOAD_SECONDS / ROUNDS));
          }
        }
        const commitsDuring = (await commits(durable.databaseUrl)) - commitsBefore;
        const [serviceRun, cronbaseRun, flushRun] = samples.map(combine) as [CreateRun, CreateRun, CreateRun];
        const serviceCreated = samples[0]!.reduce((sum, s) => sum + s.completed, 0);
        const many: CreateRun[] = [];
        for (const target of targets.slice(0, 2)) {
          console.log(`  POST /api/jobs, fsync on, ${MANY_CONNECTIONS} connections: ${target.name}`);
          many.push(await createFor(target.url, 'many', LOAD_SECONDS / ROUNDS, MANY_CONNECTIONS));
        }
        const [serviceMany, cronbaseMany] = many as [CreateRun, CreateRun];
        console.log('  POST /api/jobs, fsync off (the bench server)');
        const undurable = await createFor(ctx.serviceUrl, 'fsync-off', LOAD_SECONDS);
        const ratio = serviceRun.perSecond / cronbaseRun.perSecond;
        const flushRatio = serviceRun.perSecond / flushRun.perSecond;
        ctx.bar({
          measure:
            'POST /api/jobs, fsync on, × cronbase stand-in (Bun + SQLite, a flush per job; same disk, same run)',
          target: `≥ ${BAR_VS_CRONBASE.toFixed(1)}`,
          measured: `${ratio.toFixed(2)} (${formatNumber(serviceRun.perSecond)} vs ${formatNumber(cronbaseRun.perSecond)} req/s)`,
          met: ratio >= BAR_VS_CRONBASE,
        });
        const storeSettings =
          `\`journal_mode=${cronbase.journalMode}\`, \`synchronous=${describeSynchronous(cronbase.synchronous)}\`` +
          ` (${cronbase.synchronous}), Bun ${cronbase.bunVersion}`;
        ctx.report(
          'Creating jobs',
          [
            `\`POST /api/jobs\`, each a new job with a name of its own (a daily schedule, a command, a description ` +
              `and two tags), ${DEFAULT_CONNECTIONS} connections, ${WARMUP_SECONDS} s of warm-up then ` +
              `${LOAD_SECONDS} s in ${ROUNDS} alternating rounds. **fsync on**: \`crondeck serve\` (${describeShippedStart('api', 'serve')}) on a ` +
              `PostgreSQL server of its own started with ${settings} (\`PG_DURABLE=1 scripts/throwaway-postgres.sh\`). ` +
              'Creations that arrive while one is being written share the next statement (group commit: the jobs ' +
              'and their slot ledger in one INSERT that commits alone), so the server flushes its log once per batch.',
            '',
            "The bar is issue 22's goal, ≥ 1.0 × cronbase 0.4.0's creations at equal durability. cronbase is " +
              'published nowhere this machine can install from, so it is played by a stand-in ' +
              '(`bench/standins/cronbaseStandIn.mjs`): the same runtime and database, Bun with its HTTP server and ' +
              `its built-in SQLite, with cronbase's store settings (${storeSettings}: each commit flushed), doing a ` +
              "creation's database work as cronbase does (a SELECT by name, an INSERT that commits alone, a SELECT " +
              'of the row), and less around it (no cron parsing, no framework): if anything faster than cronbase. ' +
              'Its database is in /tmp, on the disk the PostgreSQL server uses.',
            '',
            'For reference, the yardstick of earlier runs: a bare `node:http` server answering the same 201 bytes ' +
              'after appending the body to a file in /tmp and `fdatasync`-ing it, one write at a time. It is not an ' +
              "upper bound of such a store: its every flush also commits the file's new size, where SQLite's " +
              'write-ahead log is rewritten in place.',
            '',
            markdownTable(
              ['target', 'durability', 'creates/s', 'p50 ms', 'p99 ms', 'non-2xx'],
              [
                ['crondeck serve', 'fsync on', ...row(serviceRun)],
                [
                  'cronbase stand-in (Bun + SQLite)',
                  'a flush per job (WAL, synchronous=FULL)',
                  ...row(cronbaseRun),
                ],
                ['append and fdatasync (node:http)', 'a flush per write', ...row(flushRun)],
                ['crondeck serve', 'fsync off (bench server)', ...row(undurable)],
              ],
            ),
            '',
            `With fsync on: ${ratio.toFixed(2)} × the cronbase stand-in, ${flushRatio.toFixed(2)} × the append-and-flush ` +
              `server; ${(serviceCreated / Math.max(1, commitsDuring)).toFixed(1)} jobs created per committed ` +
              `transaction on that server while measured (${formatNumber(commitsDuring)} commits of any kind).`,
            '',
            `With ${MANY_CONNECTIONS} connections instead (one round of ${LOAD_SECONDS / ROUNDS} s each, fsync on; not a bar): ` +
              'a store that commits each job alone serves one creation at a time however many wait, where group ' +
              'commit writes more jobs per flush the more arrive together.',
            '',
            markdownTable(
              ['target', 'connections', 'creates/s', 'p50 ms', 'p99 ms', 'non-2xx'],
              [
                ['crondeck serve', String(MANY_CONNECTIONS), ...row(serviceMany)],
                ['cronbase stand-in (Bun + SQLite)', String(MANY_CONNECTIONS), ...row(cronbaseMany)],
              ],
            ),
            '',
            `${(serviceMany.perSecond / cronbaseMany.perSecond).toFixed(2)} × the stand-in at ${MANY_CONNECTIONS} connections.`,
          ].join('\n'),
        );
      } finally {
        await cronbase.stop();
        await ceiling.stop();
      }
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await durable.stop();
  }
}

function jobBody(name: string) {
  return {
    name,
    schedule: '15 3 * * *',
    command: `echo "${name}" && sleep 0`,
    description: 'Created by bench/scenarios/creates.ts',
    tags: ['bench', 'creates'],
  };
}

/** Creates new jobs for `seconds` at the bench's connections, each with a name of its own. */
async function createFor(
  url: string,
  prefix: string,
  seconds: number,
  connections = DEFAULT_CONNECTIONS,
): Promise<CreateRun> {
  let next = 0;
  const latencies: number[] = [];
  const instance = autocannon({
    url: `${url}/api/jobs`,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify(jobBody(`bench-${prefix}-${process.pid}-${next++}`)),
        }),
      },
    ],
  });
  instance.on('response', (_client, status, _bytes, responseTime) => {
    if (status >= 200 && status < 300) latencies.push(responseTime);
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: result.requests.total / result.duration,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    non2xx: result.non2xx,
    completed: result.requests.total,
  };
}

function combine(runs: CreateRun[]): CreateRun {
  const completed = runs.reduce((sum, r) => sum + r.completed, 0);
  const perSecond = runs.reduce((sum, r) => sum + r.perSecond, 0) / runs.length;
  return {
    perSecond,
    completed,
    // Each round's median and p99, the worst of the rounds: the rounds are of equal length.
    p50Ms: Math.max(...runs.map((r) => r.p50Ms)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

function row(run: CreateRun): string[] {
  return [formatNumber(run.perSecond), run.p50Ms.toFixed(2), run.p99Ms.toFixed(2), String(run.non2xx)];
}

async function readDurability(databaseUrl: string): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const settings = [];
    for (const name of ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method']) {
      const { rows } = await client.query<Record<string, string>>(`SHOW ${name}`);
      settings.push(`\`${name}=${Object.values(rows[0]!)[0]}\``);
    }
    return settings.join(', ');
  } finally {
    await client.end();
  }
}

async function commits(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT sum(xact_commit)::text AS n FROM pg_stat_database',
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
