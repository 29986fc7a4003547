import type { V1CronJob } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import { statusOf } from '../../kube/apiErrors';
import type { ClusterClient } from '../../kube/clusterClient';
import { cronJobNameFor } from '../../kube/cronJobName';
import { LABEL_JOB_ID, LABEL_MANAGED_BY, MANAGED_BY_CRONDECK } from '../../kube/labels';
import { crNameForJobName } from '../../kube/resources/names';
import { apiMessage } from '../../kube/apiErrors';
import type { Clock } from '../../domain/clock';
import { conflict, invalid } from '../../domain/errors';
import type { Job } from '../../domain/job';
import type { Logger } from '../../logging/logger';
import { isPausedAt } from '../../domain/schedulerState';
import { findJob, listJobs } from '../../store/jobs';
import { readSchedulerState } from '../../store/scheduler';
import { resourceOfJob } from '../../store/resourceJobs';
import type { Backfill } from '../../store/slots';
import type { SchedulerState } from '../../domain/schedulerState';
import type { Runtime } from '../runtime';
import { RuntimeRefusedError } from '../runtimeRefused';
import { manualJobFromCronJob } from './manualRun';
import { patchOfJob, scheduledJobOfJob } from './scheduledJobOfJob';

/** @public See KubernetesRuntime. */
export interface KubernetesRuntimeOptions {
  cluster: ClusterClient;
  pool: Pool;
  /** Where the REST API creates ScheduledJobs (the service's own namespace). */
  namespace: string;
  /** Whose CronJobs pause and resume touch; null for all namespaces. */
  watchNamespace: string | null;
  clock: Clock;
  logger: Logger;
}

/**
 * The runtime of `crondeck serve` on a cluster: firing belongs to the cluster's CronJob
 * controller, so this runtime only writes the cluster. A job saved through the REST API becomes a
 * ScheduledJob (which the Crondeck controller turns into a CronJob); "run now" creates a Job from
 * the CronJob's template; pause and resume suspend and resume every managed CronJob. Every write
 * answers synchronously: a refusal reaches the API caller.
 *
 * @public Required lazily by src/runtime/createRuntime.ts (local mode never loads it); knip does
 * not follow that require.
 */
export class KubernetesRuntime implements Runtime {
  /** A save writes the job's ScheduledJob, which the API server may refuse. */
  readonly savesInMemory = false;

  constructor(private readonly options: KubernetesRuntimeOptions) {}

  async start(): Promise<void> {
    // Fail at start, with a message, rather than at the first request.
    await this.call(() => this.options.cluster.listCustom('scheduledjobs', this.options.namespace));
  }

  async stop(): Promise<void> {
    // Nothing runs here: the cluster's runs go on without the service.
  }

  async jobSaved(job: Job): Promise<void> {
    const { cluster, namespace } = this.options;
    const resource = (await resourceOfJob(this.options.pool, job.id)) ?? {
      namespace,
      name: crNameForJobName(job.name),
    };
    try {
      await cluster.patchScheduledJob(resource.namespace, resource.name, patchOfJob(job, resource.name));
      return;
    } catch (error) {
      if (statusOf(error) !== 404) throw this.refusal(error);
    }
    try {
      await cluster.createScheduledJob(resource.namespace, scheduledJobOfJob(job, resource.namespace));
    } catch (error) {
      if (statusOf(error) === 409) {
        throw conflict(
          `a ScheduledJob named "${resource.name}" already exists in namespace ${resource.namespace}`,
        );
      }
      throw this.refusal(error);
    }
  }

  async jobDeleted(jobId: number): Promise<void> {
    const job = await findJob(this.options.pool, jobId);
    const resource =
      (await resourceOfJob(this.options.pool, jobId)) ??
      (job ? { namespace: this.options.namespace, name: crNameForJobName(job.name) } : null);
    if (!resource) return;
    try {
      await this.options.cluster.deleteScheduledJob(resource.namespace, resource.name);
    } catch (error) {
      if (statusOf(error) !== 404) throw this.refusal(error);
    }
  }

  async runNow(job: Job): Promise<void> {
    const { namespace, cronJob } = await this.cronJobOf(job);
    await this.call(() => this.options.cluster.createJob(namespace, manualJobFromCronJob(cronJob)));
  }

  /**
   * The backfill is recorded: the leading controller creates its Jobs from the CronJob's template,
   * `concurrency` at a time (controller/slotRuns/slotRunner.ts), as it does a catch-up's. Refused,
   * so that it is not left waiting, while the job has no CronJob to make them from.
   */
  async backfill(job: Job, _backfill: Backfill): Promise<void> {
    await this.cronJobOf(job);
  }

  /** The CronJob of a job's ScheduledJob; a conflict while the controller has not made it. */
  private async cronJobOf(job: Job): Promise<{ namespace: string; cronJob: V1CronJob }> {
    const resource = await resourceOfJob(this.options.pool, job.id);
    const notYet = conflict(`job ${job.id} has no CronJob yet: the controller has not reconciled it`);
    if (!resource) throw notYet;
    try {
      return {
        namespace: resource.namespace,
        cronJob: await this.options.cluster.readCronJob(resource.namespace, cronJobNameFor(resource.name)),
      };
    } catch (error) {
      throw statusOf(error) === 404 ? notYet : this.refusal(error);
    }
  }

  /**
   * A job's alert policy suspended it, or a person resumed it: its CronJob is suspended or resumed
   * at once, as a pause does, and the controller (which reconciles on that change and reads the
   * suspension from the job's row) keeps it so and says so in the ScheduledJob's status. The
   * user's `spec.suspend` is left as written. A CronJob not made yet is made right by the controller.
   */
  async suspensionChanged(job: Job): Promise<void> {
    const resource = await resourceOfJob(this.options.pool, job.id);
    if (!resource) return;
    const paused = isPausedAt(await readSchedulerState(this.options.pool), this.options.clock.now());
    try {
      await this.options.cluster.patchCronJob(resource.namespace, cronJobNameFor(resource.name), {
        spec: { suspend: paused || !job.enabled },
      });
    } catch (error) {
      if (statusOf(error) !== 404) throw this.refusal(error);
    }
  }

  /** Suspends every managed CronJob while paused; on resume, those of enabled jobs run again. */
  async schedulerChanged(state: SchedulerState): Promise<void> {
    const paused = isPausedAt(state, this.options.clock.now());
    const enabled = new Set(
      (await listJobs(this.options.pool)).filter((job) => job.enabled).map((job) => job.id),
    );
    const { items } = await this.call(() =>
      this.options.cluster.listCronJobs(
        this.options.watchNamespace,
        `${LABEL_MANAGED_BY}=${MANAGED_BY_CRONDECK}`,
      ),
    );
    for (const cronJob of items) {
      const jobId = Number(cronJob.metadata?.labels?.[LABEL_JOB_ID]);
      const suspend = paused || !enabled.has(jobId);
      if ((cronJob.spec?.suspend ?? false) === suspend) continue;
      await this.call(() =>
        this.options.cluster.patchCronJob(cronJob.metadata?.namespace ?? '', cronJob.metadata?.name ?? '', {
          spec: { suspend },
        }),
      );
    }
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.refusal(error);
    }
  }

  /** A 422 is the caller's input the cluster refused (400); anything else is the cluster's (503). */
  private refusal(error: unknown): Error {
    if (statusOf(error) === 422) return invalid(`the cluster refused the job: ${apiMessage(error)}`);
    this.options.logger.warn('the cluster refused a request', { err: error });
    return new RuntimeRefusedError(`the cluster refused the change: ${apiMessage(error)}`, { cause: error });
  }
}
