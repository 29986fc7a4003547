import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../src/domain/clock';
import type { RunningController } from '../../src/controller/startController';
import type { RunningService } from '../../src/service';
import { connectToServer, type Database } from '../../src/store/database';
import { migrate } from '../../src/store/migrate';
import { findJobForResource } from '../../src/store/resourceJobs';
import { provideDatabase } from '../e2e/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
import { createMemoryLogger } from '../support/memoryLogger';
import { NAMESPACE, runController, serveOnCluster, startCluster, until, untilSettled } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const MINUTE = 60_000;

/** The test's time, shared by the cluster, the controller and the service: real time, moved on by hand. */
export class OffsetClock implements Clock {
  private offsetMs: number;

  constructor(start: Date) {
    this.offsetMs = start.getTime() - Date.now();
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): Date {
    this.offsetMs += ms;
    return this.now();
  }

  /** Moves the time to `at` (never backwards: the cluster's objects would come from the future). */
  set(at: Date): Date {
    this.offsetMs = Math.max(this.offsetMs, at.getTime() - Date.now());
    return this.now();
  }
}

/**
 * The slot ledger on the emulated cluster: `crondeck serve` in Kubernetes mode (the judge judging
 * when the test says, at the test's time) and `crondeck controller`, sharing a database and the
 * test's clock with the emulator, whose CronJob and Job controllers the test plays, and whose pods
 * the stand-in kubelet runs as real `crondeck run` processes.
 */
export class SlotCluster {
  private controller: RunningController | null = null;

  private constructor(
    readonly emu: KubeEmulator,
    readonly kc: KubeConfig,
    readonly db: Database,
    readonly service: RunningService,
    readonly clock: OffsetClock,
  ) {}

  static async start(start: Date, env: Record<string, string> = {}): Promise<SlotCluster> {
    const clock = new OffsetClock(start);
    const { emu, kc } = await startCluster({ now: () => clock.now() });
    const db = await serverDatabase();
    const service = await serveOnCluster(db, kc, undefined, { clock, env });
    const cluster = new SlotCluster(emu, kc, db, service, clock);
    await cluster.startController();
    return cluster;
  }

  /** `crondeck controller`, leading at once: it works out catch-ups as it starts. */
  async startController(): Promise<void> {
    const controller = await runController(this.kc, this.db, {
      reportUrl: this.service.url,
      clock: this.clock,
      reportGraceMs: 300,
      slotRunIntervalMs: 200,
    });
    this.controller = controller;
  }

  async stopTheController(): Promise<void> {
    await this.controller?.stop();
    this.controller = null;
  }

  /** Waits until the controller has settled a finished Kubernetes Job for good (`untilSettled`). */
  async untilSettledByController(kubeJob: Obj): Promise<void> {
    if (!this.controller) throw new Error('the controller is not running');
    await untilSettled(this.controller, kubeJob);
  }

  /**
   * Waits until the controller's slot runner (catch-ups, backfills) has made a whole pass that
   * looked at the cluster's Jobs as they are now, so that any Job it was going to make of them, it
   * has made: a test that says it makes no more Jobs asserts after this rather than after a sleep.
   * A pass lists the Jobs of each job it is catching up or backfilling (one such job here), and
   * passes follow one another: the third list after now comes from a pass that started after the
   * pass of the second had ended. (An informer's relist counts too: a pass less of margin.) A runner
   * with nothing left to catch up lists nothing: after 5 s the test asserts all the same.
   */
  async untilSlotRunnerLooked(): Promise<void> {
    const lists = () => this.emu.requestCounts()['list jobs'] ?? 0;
    const before = lists();
    const deadline = Date.now() + 5000;
    while (lists() < before + 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async stop(): Promise<void> {
    await this.stopTheController();
    await this.service.stop();
    await this.emu.stop();
    await this.db.close();
  }

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: Obj }> {
    const response = await fetch(this.service.url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** The job id of a ScheduledJob, once the controller has made its CronJob. */
  async jobIdOf(name: string): Promise<number> {
    await until(
      () => this.emu.objects('cronjobs', NAMESPACE).some((c) => c.metadata.name === name),
      `${name}'s CronJob`,
    );
    return (await findJobForResource(this.db.pool, NAMESPACE, name))!.id;
  }

  /** The Kubernetes Jobs of a CronJob (its own, run-now, catch-up and backfill ones), by name. */
  jobsOf(cronJobName: string): Obj[] {
    return this.emu
      .objects('jobs', NAMESPACE)
      .filter((job) => job.metadata.ownerReferences?.[0]?.name === cronJobName)
      .sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
  }

  /** The Job controller makes the Job's pod, the kubelet runs it, the Job controller ends the Job. */
  async runJob(kubeJob: Obj): Promise<number> {
    this.emu.syncJob(NAMESPACE, kubeJob.metadata.name);
    const pod = this.emu
      .objects('pods', NAMESPACE)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === kubeJob.metadata.uid)!;
    const exitCode = await runPod(this.emu, NAMESPACE, pod.metadata.name);
    this.emu.syncJob(NAMESPACE, kubeJob.metadata.name);
    return exitCode;
  }

  async executions(jobId: number): Promise<Obj[]> {
    return (await this.request('GET', `/api/executions?jobId=${jobId}`)).body as Obj[];
  }

  /** Waits until the job has `count` executions; answers them oldest first, with their output. */
  async waitForExecutions(jobId: number, count: number): Promise<Obj[]> {
    const listed = await until(async () => {
      const rows = await this.executions(jobId);
      return rows.length >= count ? rows : null;
    }, `${count} executions of job ${jobId}`);
    const full = await Promise.all(
      listed.map(async (row) => (await this.request('GET', `/api/executions/${row.id}`)).body),
    );
    return full.reverse();
  }

  /**
   * Judges at `now` (the judge of the one replica holding its lock) until every slot of the job
   * whose grace has passed at `now` is judged, then lists the slots oldest first.
   *
   * One pass is not enough: the judge leaves a job that is being written at that moment to its
   * next pass rather than wait for it (`lockDueCursors` in src/store/slots.ts: SKIP LOCKED on the
   * cursor and the job's row, a try-lock on its evidence), and the controller writes the job's row
   * and its cursor (`upsertJobForResource`, `saveJobInLedger`) each time it reconciles the
   * ScheduledJob: after writing its status, after a toggle, a pause or a resume. In a cluster the
   * judge's next pass comes a few seconds later; here the test asks again until the job's cursor
   * is due after `now`, which the judge's plan makes it once it has judged every slot up to `now`
   * (the jobs of these tests all have a next slot). What is listed is then exactly what was judged.
   */
  async judgedSlots(jobId: number, now: Date): Promise<Obj[]> {
    await until(async () => {
      await this.service.judge.judge(now);
      const { rows } = await this.db.pool.query<{ due_at: Date | null }>(
        'SELECT due_at FROM slot_cursors WHERE job_id = $1',
        [jobId],
      );
      const dueAt = rows[0]?.due_at;
      return dueAt != null && dueAt.getTime() > now.getTime();
    }, `the judge to judge every slot of job ${jobId} due at ${now.toISOString()}`);
    return ((await this.request('GET', `/api/jobs/${jobId}/slots`)).body as Obj[]).reverse();
  }
}

/**
 * A PostgreSQL database of the test's own (Kubernetes mode shares one between the service and the
 * controller, which the embedded database cannot): a fresh one on the server of DATABASE_URL, or a
 * throwaway server of the machine's binaries.
 */
export async function serverDatabase(): Promise<Database> {
  const provided = await provideDatabase();
  const db = connectToServer(provided.url, 5);
  await migrate(db.pool, createMemoryLogger());
  return {
    ...db,
    async close() {
      await db.close();
      await provided.close();
    },
  };
}

/**
 * A start for the test's clock: `minutes` whole minutes before now, 10 s past the minute. Pods
 * run in real time, so a clock behind it keeps each run's start after its claim, as in a cluster
 * (a run's start is its claim's time or later).
 */
export function minutesAgo(minutes: number): Date {
  return new Date((Math.floor(Date.now() / MINUTE) - minutes) * MINUTE + 10_000);
}

/** The time of the next whole minute after `at`, plus `plusMs`. */
export function nextMinute(at: Date, plusMs = 0): Date {
  return new Date(Math.floor(at.getTime() / MINUTE) * MINUTE + MINUTE + plusMs);
}
