import type { Pool, PoolClient } from 'pg';
import type { Clock } from '../../domain/clock';
import { effectiveTimeZone } from '../../domain/job';
import type { Logger } from '../../logging/logger';
import { withTransaction } from '../../store/database';
import { claimOverrun, enqueueAlerts, findAlertConfigs, findOverrunningAttempts } from '../../store/alerts';
import { findJob } from '../../store/jobs';
import { type AlertSnapshot, jobSnapshotOf } from '../alertSnapshot';
import type { outboxRows } from '../outboxHook';
import { mutedNote, openMaintenanceWindow } from './maintenance';

/** A run in progress, as the runtime that knows it names it. */
export interface RunInProgress {
  jobId: number;
  /** Unique per run: `execution:<id of its first attempt>` locally, `run:<Kubernetes Job uid>` on a cluster. */
  runKey: string;
  startedAt: Date;
  /** The attempt in progress, where it is known. */
  executionId?: number;
  attempt?: number;
}

/**
 * The `overrun` event (policy `maxDurationSeconds`): raised once per run still going past that
 * long, while it goes. Once is kept in the database: the run's key is claimed in the transaction
 * that queues its alerts (migration 014), so a restart, a second replica or a resync that looks at
 * the same run again raises nothing more.
 */
export class OverrunAlerts {
  constructor(
    private readonly deps: {
      pool: Pool;
      clock: Clock;
      defaultTimeZone: string;
      rowsOf: ReturnType<typeof outboxRows>;
      afterQueued?: () => void;
    },
  ) {}

  /**
   * Raises the run's overrun if its time has come (`raised`: by this call). `dueInMs` says how long
   * until it comes (the caller looks again then), or is null when there is nothing to wait for:
   * raised now or before, or the job has no `maxDurationSeconds`.
   */
  async raiseIfDue(run: RunInProgress): Promise<{ dueInMs: number | null; raised: boolean }> {
    const maxSeconds = (await findAlertConfigs(this.deps.pool, [run.jobId])).get(run.jobId)?.policy
      ?.maxDurationSeconds;
    if (maxSeconds === undefined) return { dueInMs: null, raised: false };
    const dueAt = run.startedAt.getTime() + maxSeconds * 1000;
    const wait = dueAt - this.deps.clock.now().getTime();
    if (wait > 0) return { dueInMs: wait, raised: false };
    const outcome = await withTransaction(this.deps.pool, (tx) => this.raise(tx, run));
    if (outcome === 'queued') this.deps.afterQueued?.();
    return { dueInMs: null, raised: outcome !== 'taken before' };
  }

  /** Raises every overrun due among the runs of this process's runtime (rows of running attempts). */
  async raiseDueLocalRuns(): Promise<number> {
    const due = await findOverrunningAttempts(this.deps.pool, this.deps.clock.now());
    let raised = 0;
    for (const attempt of due) {
      const { raised: now } = await this.raiseIfDue({
        jobId: attempt.jobId,
        runKey: `execution:${attempt.runExecutionId}`,
        startedAt: attempt.runStartedAt,
        executionId: attempt.executionId,
        attempt: attempt.attempt,
      });
      if (now) raised++;
    }
    return raised;
  }

  /**
   * Queues the run's overrun alerts unless a transaction did before: `queued` when one of them is
   * to be sent, `held` when all were muted (or no destination listens).
   */
  private async raise(tx: PoolClient, run: RunInProgress): Promise<'queued' | 'held' | 'taken before'> {
    const subject = `overrun:${run.runKey}`;
    if (!(await claimOverrun(tx, run.jobId, subject))) return 'taken before';
    const job = await findJob(tx, run.jobId);
    const config = (await findAlertConfigs(tx, [run.jobId])).get(run.jobId);
    const maxDurationSeconds = config?.policy?.maxDurationSeconds;
    if (!job || !config || maxDurationSeconds === undefined) return 'held';
    const now = this.deps.clock.now();
    const open = openMaintenanceWindow(
      config.policy?.maintenance,
      effectiveTimeZone(job, this.deps.defaultTimeZone),
      now,
    );
    const snapshot: AlertSnapshot = {
      event: 'overrun',
      job: jobSnapshotOf(job),
      timestamp: now.toISOString(),
      run: {
        startedAt: run.startedAt.toISOString(),
        runningForMs: Math.max(0, now.getTime() - run.startedAt.getTime()),
        maxDurationSeconds,
        ...(run.executionId !== undefined ? { executionId: run.executionId } : {}),
        ...(run.attempt !== undefined ? { attempt: run.attempt } : {}),
      },
    };
    const rows = this.deps.rowsOf(config, {
      job,
      executionId: run.executionId ?? null,
      subject,
      event: 'overrun',
      snapshot,
      state: open ? 'muted' : 'pending',
      note: open ? `muted: ${mutedNote(open)}` : null,
      createdAt: now,
    });
    await enqueueAlerts(tx, rows);
    return rows.some((row) => row.state === 'pending') ? 'queued' : 'held';
  }
}

/**
 * Looks for overrunning runs of the local runtime every `intervalMs` (their attempts' rows say
 * `running`): every replica may look, the database keeps each overrun to once.
 */
export function watchLocalOverruns(
  overruns: OverrunAlerts,
  logger: Logger,
  intervalMs: number,
): { stop(): Promise<void> } {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    current = overruns
      .raiseDueLocalRuns()
      .catch((error) => logger.warn('could not look for overrunning runs; will try again', { err: error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs).unref();
      });
  };
  timer = setTimeout(tick, intervalMs).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
