/**
 * Alert delivery under a burst, as the alerting issue asks for it: 1,000 jobs fire in the same
 * second, each run finishes at once and has one webhook (a loopback receiver in this process).
 * Measured with the same jobs without the webhook, with it, and with it and an alert policy (whose
 * state the recording transaction reads and writes as well):
 *  - the scheduler's fire delay (from the fire time to the attempt starting, which includes writing
 *    the execution's row), p50/p99/max, to see whether queuing and delivering alerts slows firing;
 *  - how long the 1,000 executions take to be recorded;
 *  - delivery: all alerts received, none twice, throughput, and the latency from an execution's end
 *    to its alert's arrival.
 *
 * The service runs in this process (`startService` of the build, like `node dist/cli.js serve`)
 * on a database of its own (the bench's service leads the shared one and would take its runs),
 * with an attempt runner that returns at once and a clock shifted so the
 * next minute boundary (when `* * * * *` fires) comes a few seconds after start-up.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import type { RunnableJob } from '../../src/runner/attemptLoop';
import type { CommandResult } from '../../src/runner/runCommand';
import { type BenchContext, formatNumber, fromBuild, markdownTable, percentile, sleep } from '../harness';
import { startInProcessService } from '../inProcessService';

const { parseJobsFile } = fromBuild<typeof import('../../src/config/jobsFile')>('config/jobsFile');

const JOBS = 1_000;
const PREFIX = 'bench-alert-';
/** Real time between the service being up and the jobs firing. */
const LEAD_MS = 6_000;
const MINUTE_MS = 60_000;
const DEADLINE_MS = 120_000;
const WORKER_ID = 'bench-alerts-in-process';

interface RoundResult {
  label: string;
  fireDelaysMs: number[];
  /** From the fire time to the last of the 1,000 executions recorded. */
  recordedWithinMs: number;
  delivery?: DeliveryResult;
}

interface DeliveryResult {
  received: number;
  duplicates: number;
  firstMs: number;
  lastMs: number;
  endToEndMs: number[];
  byThisProcess: number;
}

/** What bench/run.ts calls. */
export async function run(ctx: BenchContext): Promise<void> {
  const receiver = await Receiver.start();
  const target = await ownDatabase(ctx);
  try {
    // A first round warms up the JIT, the pool's connections and PostgreSQL's caches; it is not
    // reported. The kinds of rounds then alternate, so that drift on a shared machine shows.
    const plan: RoundKind[] = ['none', 'none', 'webhook', 'policy', 'none', 'webhook', 'policy'];
    const rounds: RoundResult[] = [];
    for (const [index, kind] of plan.entries()) {
      console.log(`  ${JOBS} jobs firing together, ${ROUND_LABELS[kind]}${index === 0 ? ' (warm-up)' : ''}`);
      const round = await runRound(target, receiver, kind);
      if (index > 0) rounds.push(round);
      await cleanUp(target, receiver.url);
    }
    report(ctx, rounds);
  } finally {
    await target.close();
    await receiver.close();
  }
}

/** The database the scenario's service has to itself, and a pool on it for the scenario's own queries. */
interface Target {
  databaseUrl: string;
  sql<R>(text: string, values?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

async function ownDatabase(ctx: BenchContext): Promise<Target> {
  const databaseUrl = await ctx.freshDatabase('bench_alerts');
  const pool = new Pool({ connectionString: databaseUrl, max: 2 });
  return {
    databaseUrl,
    sql: async <R>(text: string, values?: unknown[]) => (await pool.query(text, values)).rows as R[],
    close: () => pool.end(),
  };
}

type RoundKind = 'none' | 'webhook' | 'policy';
const ROUND_LABELS: Record<RoundKind, string> = {
  none: 'no alerts',
  webhook: 'one webhook per job',
  policy: 'one webhook per job and an alert policy',
};
/** A policy that each of these runs (a success, at once) goes through without raising more alerts. */
const POLICY = {
  afterConsecutiveFailures: 2,
  recovery: true,
  repeatEverySeconds: 3600,
  suspendAfterFailures: 5,
};

async function runRound(ctx: Target, receiver: Receiver, kind: RoundKind): Promise<RoundResult> {
  receiver.reset();
  const withAlerts = kind !== 'none';
  const entries = Array.from({ length: JOBS }, (_, i) => ({
    name: `${PREFIX}${String(i).padStart(4, '0')}`,
    schedule: '* * * * *',
    command: 'true',
    ...(withAlerts ? { on_complete: `${receiver.url}/hook` } : {}),
    ...(kind === 'policy' ? { alert_policy: POLICY } : {}),
  }));
  const declaredJobs = parseJobsFile(JSON.stringify({ jobs: entries }), 'bench-alerts.json');

  // A clock running ahead so that its next minute boundary is LEAD_MS of real time after start-up.
  const realStart = Date.now();
  const fireAt = Math.ceil((realStart + MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  const offsetMs = fireAt - LEAD_MS - realStart;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  receiver.offsetMs = offsetMs;

  const fireDelaysMs: number[] = [];
  let recorded = 0;
  let lastRecordedAt = 0;
  const execute = async (job: RunnableJob): Promise<CommandResult> => {
    const now = clock.now();
    if (job.name.startsWith(PREFIX)) fireDelaysMs.push(now.getTime() - fireAt);
    return { status: 'success', exitCode: 0, stdout: 'ok\n', stderr: '', startedAt: now, finishedAt: now };
  };

  const service = await startInProcessService(ctx.databaseUrl, {
    clock,
    declaredJobs,
    local: { execute, autoTick: true },
    alerting: { workerId: WORKER_ID },
  });
  try {
    if (clock.now().getTime() >= fireAt) throw new Error(`start-up took longer than the ${LEAD_MS} ms lead`);
    service.recorder.subscribe((execution) => {
      if (!execution.jobName.startsWith(PREFIX)) return;
      recorded++;
      lastRecordedAt = clock.now().getTime();
    });
    const deadline = Date.now() + LEAD_MS + DEADLINE_MS;
    while (recorded < JOBS || (withAlerts && receiver.keys.size < JOBS)) {
      if (Date.now() > deadline) {
        throw new Error(
          `after ${DEADLINE_MS} ms: ${recorded} executions recorded, ${receiver.keys.size} alerts received`,
        );
      }
      await sleep(20);
    }
    // Anything sent twice would arrive within a few poll intervals.
    if (withAlerts) await sleep(3_000);
    const result: RoundResult = {
      label: ROUND_LABELS[kind],
      fireDelaysMs: fireDelaysMs.sort((a, b) => a - b),
      recordedWithinMs: lastRecordedAt - fireAt,
    };
    if (withAlerts) {
      result.delivery = {
        received: receiver.keys.size,
        duplicates: receiver.count - receiver.keys.size,
        firstMs: Math.min(...receiver.arrivals) + offsetMs - fireAt,
        lastMs: Math.max(...receiver.arrivals) + offsetMs - fireAt,
        endToEndMs: [...receiver.endToEndMs].sort((a, b) => a - b),
        byThisProcess: await deliveredBy(ctx, WORKER_ID, receiver.url),
      };
    }
    return result;
  } finally {
    await service.stop();
  }
}

/** The alerts that the service of this process delivered (on its own database: all of them). */
async function deliveredBy(ctx: Target, workerId: string, url: string): Promise<number> {
  const rows = await ctx.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM alert_outbox
     WHERE destination LIKE $1 || '%' AND state = 'delivered' AND locked_by = $2`,
    [url, workerId],
  );
  return rows[0]?.n ?? 0;
}

async function cleanUp(ctx: Target, receiverUrl: string): Promise<void> {
  await ctx.sql(`DELETE FROM jobs WHERE name LIKE $1 || '%'`, [PREFIX]);
  await ctx.sql(`DELETE FROM alert_outbox WHERE destination LIKE $1 || '%'`, [receiverUrl]);
}

function report(ctx: BenchContext, rounds: RoundResult[]): void {
  const ms = (value: number) => value.toFixed(1);
  const deliveries = rounds.flatMap((round) => (round.delivery ? [round.delivery] : []));
  const lines = [
    `${formatNumber(JOBS)} jobs on \`* * * * *\` fire in the same tick of an in-process service (\`startService\` of ` +
      'the build, PostgreSQL pool of 10) whose attempt runner returns at once; the same jobs without and with ' +
      'one webhook each (`on_complete`, a loopback `node:http` receiver in the bench process answering 200), ' +
      `and with the webhook and an alert policy (\`${JSON.stringify(POLICY)}\`, whose state each recording ` +
      'reads and writes). ' +
      'Fire delay: from the fire time to the attempt starting (the execution row is written first). ' +
      'An unreported warm-up round comes first; then the kinds of rounds alternate.',
    '',
    markdownTable(
      ['round', 'fire delay p50 ms', 'p99 ms', 'max ms', 'all executions recorded after'],
      rounds.map((round) => [
        round.label,
        ms(percentile(round.fireDelaysMs, 0.5)),
        ms(percentile(round.fireDelaysMs, 0.99)),
        ms(round.fireDelaysMs[round.fireDelaysMs.length - 1] ?? NaN),
        `${ms(round.recordedWithinMs)} ms`,
      ]),
    ),
  ];
  if (deliveries.length > 0) {
    lines.push(
      '',
      'Delivery of the alerts (times from the fire time):',
      '',
      markdownTable(
        [
          'alerts received',
          'sent twice',
          'first',
          'last',
          'throughput',
          'execution end → arrival p50',
          'p99',
          'delivered by this process',
        ],
        deliveries.map((delivery) => [
          formatNumber(delivery.received),
          String(delivery.duplicates),
          `${ms(delivery.firstMs)} ms`,
          `${ms(delivery.lastMs)} ms`,
          `${formatNumber(delivery.received / Math.max((delivery.lastMs - delivery.firstMs) / 1000, 0.001))} alerts/s`,
          `${ms(percentile(delivery.endToEndMs, 0.5))} ms`,
          `${ms(percentile(delivery.endToEndMs, 0.99))} ms`,
          formatNumber(delivery.byThisProcess),
        ]),
      ),
      '',
      "The service has a database of its own (the bench's service leads the shared one and would take " +
        'its runs); "delivered by this process" counts its worker\'s deliveries.',
    );
  }
  ctx.report('Alerts under a burst of 1,000 executions', lines.join('\n'));
}

/** A loopback webhook receiver that counts alerts by their idempotency key. */
class Receiver {
  readonly keys = new Set<string>();
  count = 0;
  /** Real-time arrival of each request (ms since the epoch). */
  readonly arrivals: number[] = [];
  /** From the execution's end (its `finishedAt`, service clock) to the arrival. */
  readonly endToEndMs: number[] = [];
  offsetMs = 0;

  private readonly server: Server;
  url = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.record(String(req.headers['idempotency-key']), Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200).end();
      });
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  reset(): void {
    this.keys.clear();
    this.count = 0;
    this.arrivals.length = 0;
    this.endToEndMs.length = 0;
  }

  private record(key: string, body: string): void {
    const now = Date.now();
    this.count++;
    this.keys.add(key);
    this.arrivals.push(now);
    const finishedAt = (JSON.parse(body) as { execution: { finishedAt: string } }).execution.finishedAt;
    // finishedAt is on the shifted clock of the service; the receiver sees real time.
    this.endToEndMs.push(now + this.offsetMs - Date.parse(finishedAt));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
