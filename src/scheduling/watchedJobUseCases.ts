import type { Pool } from 'pg';
import type { Caller } from '../domain/caller';
import type { Clock } from '../domain/clock';
import { conflict, notFound } from '../domain/errors';
import type { Job } from '../domain/job';
import type { WatchedCronJobRuntime } from '../runtime/kubernetes/watchedCronJobActions';
import type { Runtime } from '../runtime/runtime';
import { withTransaction } from '../store/database';
import { findJob, setJobEnabled } from '../store/jobs';
import { saveJobInLedger } from '../store/slots';
import { WATCHED_SUSPENDED_REASON } from '../store/watchedCronJobJobs';

/**
 * Run now and the toggle of a watched CronJob's job (issue 40): written to the CronJob itself
 * (its `spec.suspend`; a Job from its template), never to a ScheduledJob. Each answers null for a
 * job that is no watched CronJob's, which the caller then handles as any job.
 */
export class WatchedJobUseCases {
  constructor(
    private readonly pool: Pool,
    private readonly runtime: Runtime,
    private readonly clock: Clock,
  ) {}

  /**
   * The row changes with the CronJob, in one transaction: a refusal of the cluster leaves both as
   * they were. The controller's mirror of the CronJob then finds the row as it is.
   */
  async setEnabled(id: number, enabled: boolean, by: Caller | null): Promise<Job | null> {
    const current = await findJob(this.pool, id);
    if (!current?.cronJob) return null;
    const actions = this.actionsFor(current, enabled ? 'resume' : 'suspend');
    return withTransaction(this.pool, async (tx) => {
      const updated = await setJobEnabled(tx, id, enabled, by?.username ?? null);
      if (!updated) throw notFound(`job ${id} not found`);
      await saveJobInLedger(tx, updated, this.clock.now(), WATCHED_SUSPENDED_REASON);
      await actions.setSuspended(current, !enabled, by);
      return updated;
    });
  }

  async runNow(id: number, by: Caller | null): Promise<Job | null> {
    const current = await findJob(this.pool, id);
    if (!current?.cronJob) return null;
    await this.actionsFor(current, 'run').runNow(current, by);
    return current;
  }

  private actionsFor(job: Job, what: string): WatchedCronJobRuntime {
    const { namespace, name, watchedBy } = job.cronJob!;
    if (!this.runtime.watchedCronJobs) {
      throw conflict(
        `job ${job.id} mirrors CronJob ${namespace}/${name}: only Crondeck on its cluster can ${what} it`,
      );
    }
    if (watchedBy === null) {
      throw conflict(
        `job ${job.id} mirrors CronJob ${namespace}/${name}, which no CronJobWatch selects any more: ${what} it with kubectl`,
      );
    }
    return this.runtime.watchedCronJobs;
  }
}
