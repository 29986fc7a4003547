/**
 * `POST /api/jobs` at the durability of a production database: a PostgreSQL server of its own with
 * fsync, synchronous_commit and full_page_writes on (the bench's shared server has them off), and
 * `crondeck serve` on it; against a ceiling of the same durability in the same run: a bare
 * `node:http` server that flushes every write to the same disk before answering, one write at a
 * time, as a store that commits each job alone does (cronbase on SQLite). Also the same creations on
 * the bench's server with fsync off, as earlier figures were measured.
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

const BAR_VS_FLUSH_PER_WRITE = 1.0;

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
      try {
        const commitsBefore = await commits(durable.databaseUrl);
        const targets = [
          { name: 'service', url: service.url },
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
        const [serviceRun, ceilingRun] = samples.map(combine) as [CreateRun, CreateRun];
        const serviceCreated = samples[0]!.reduce((sum, s) => sum + s.completed, 0);
        console.log('  POST /api/jobs, fsync off (the bench server)');
        const undurable = await createFor(ctx.serviceUrl, 'fsync-off', LOAD_SECONDS);
        const ratio = serviceRun.perSecond / ceilingRun.perSecond;
        ctx.bar({
          measure: 'POST /api/jobs, fsync on, × a store flushing each write (same disk, same run)',
          target: `≥ ${BAR_VS_FLUSH_PER_WRITE.toFixed(1)}`,
          measured: `${ratio.toFixed(2)} (${formatNumber(serviceRun.perSecond)} vs ${formatNumber(ceilingRun.perSecond)} req/s)`,
          met: ratio >= BAR_VS_FLUSH_PER_WRITE,
        });
        ctx.report(
          'Creating jobs',
          [
            `\`POST /api/jobs\`, each a new job with a name of its own (a daily schedule, a command, a description ` +
              `and two tags), ${DEFAULT_CONNECTIONS} connections, ${WARMUP_SECONDS} s of warm-up then ` +
              `${LOAD_SECONDS} s in ${ROUNDS} alternating rounds. **fsync on**: \`crondeck serve\` (${describeShippedStart('api', 'serve')}) on a ` +
              `PostgreSQL server of its own started with ${settings} (\`PG_DURABLE=1 scripts/throwaway-postgres.sh\`). ` +
              'The ceiling of equal durability is a bare `node:http` server answering the same 201 bytes after ' +
              'appending the body to a file in /tmp (the disk the database is on) and `fdatasync`-ing it, one ' +
              "write at a time: what a store that commits every job alone costs on this machine's disk. " +
              'Creations that arrive while one is being written share the next statement (group commit: the jobs ' +
              'and their slot ledger in one INSERT that commits alone), so the server flushes its log once per batch.',
            '',
            markdownTable(
              ['target', 'durability', 'creates/s', 'p50 ms', 'p99 ms', 'non-2xx'],
              [
                ['crondeck serve', 'fsync on', ...row(serviceRun)],
                ['flush per write (node:http)', 'fdatasync per write', ...row(ceilingRun)],
                ['crondeck serve', 'fsync off (bench server)', ...row(undurable)],
              ],
            ),
            '',
            `With fsync on: ${ratio.toFixed(2)} × the flush-per-write ceiling; ` +
              `${(serviceCreated / Math.max(1, commitsDuring)).toFixed(1)} jobs created per committed transaction ` +
              `on that server while measured (${formatNumber(commitsDuring)} commits of any kind).`,
            '',
            "The bar stands for issue 22's goal, ≥ 1.0 × cronbase 0.4.0's creations at equal durability " +
              '(SQLite, a flush per job). cronbase is not installable here and was not measured: the ceiling ' +
              'is what such a store can at best do on this disk, one flush per job, in the same run.',
          ].join('\n'),
        );
      } finally {
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
async function createFor(url: string, prefix: string, seconds: number): Promise<CreateRun> {
  let next = 0;
  const latencies: number[] = [];
  const instance = autocannon({
    url: `${url}/api/jobs`,
    connections: DEFAULT_CONNECTIONS,
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
