import type { V1CronJob, V1Job } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import { statusOf } from '../../kube/apiErrors';
import type { ClusterClient } from '../../kube/clusterClient';
import { cronJobNameFor } from '../../kube/cronJobName';
import { LABEL_JOB_ID, LABEL_MANAGED_BY, MANAGED_BY_CRONDECK } from '../../kube/labels';
import { crNameForJobName } from '../../kube/resources/names';
import { apiMessage } from '../../kube/apiErrors';
import type { Caller } from '../../domain/caller';
import type { Clock } from '../../domain/clock';
import { conflict, forbidden, invalid } from '../../domain/errors';
import type { Job } from '../../domain/job';
import type { Logger } from '../../logging/logger';
import { isPausedAt } from '../../domain/schedulerState';
import { findJob, listJobs } from '../../store/jobs';
import { readSchedulerState } from '../../store/scheduler';
import { resourceOfJob } from '../../store/resourceJobs';
import { recordRunTrigger } from '../../store/runTriggers';
import { type Backfill, markBackfillJobsCreated } from '../../store/slots';
import { slotRunJob } from '../../kube/resources/slotRunJob';
import type { SchedulerState } from '../../domain/schedulerState';
import { nameInNamespace } from '../../kube/placement';
import type { JobChange, Runtime } from '../runtime';
import { RuntimeRefusedError } from '../runtimeRefused';
import { manualJobFromCronJob } from './manualRun';
import { WatchedCronJobActions } from './watchedCronJobActions';
import { patchOfJob, scheduledJobOfJob } from './scheduledJobOfJob';

/** A backfill's Jobs are created this many at a time (up to 1,000 of them in one request). */
const CREATES_AT_ONCE = 8;

/** A Job that makes no pod until someone sets `spec.suspend` to false. */
function suspended(kubeJob: V1Job): V1Job {
  return { ...kubeJob, spec: kubeJob.spec && { ...kubeJob.spec, suspend: true } };
}

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
  /**
   * SERVICE_AUTH=kubernetes: a client of the cluster that authenticates as the caller (their own
   * token). The writes made for a caller go through it; without it every write is the service's.
   */
  clusterOf?: (caller: Caller) => ClusterClient;
}

/**
 * The runtime of `crondeck serve` on a cluster: firing belongs to the cluster's CronJob
 * controller, so this runtime only writes the cluster. A job saved through the REST API becomes a
 * ScheduledJob (which the Crondeck controller turns into a CronJob); "run now" creates a Job from
 * the CronJob's template; pause and resume suspend and resume every managed CronJob. Every write
 * answers synchronously: a refusal reaches the API caller.
 *
 * A change made for a caller (SERVICE_AUTH=kubernetes) writes the cluster as them: their
 * ScheduledJob's creation, patch and deletion, a run now's read of the CronJob and its Job, a
 * backfill's dry run and its Jobs (created suspended; the controller resumes them). What follows
 * from it (a CronJob suspended or resumed, pause and resume) stays the service's own.
 *
 * @public Required lazily by src/runtime/createRuntime.ts (local mode never loads it); knip does
 * not follow that require.
 */
export class KubernetesRuntime implements Runtime {
  /** A save writes the job's ScheduledJob, which the API server may refuse. */
  readonly savesInMemory = false;
  readonly makesBackfillRunsAsCaller: boolean;

  constructor(private readonly options: KubernetesRuntimeOptions) {
    this.makesBackfillRunsAsCaller = Boolean(options.clusterOf);
  }

  /** Watched CronJobs (issue 40): their own CronJob is written, not a ScheduledJob. */
  get watchedCronJobs(): WatchedCronJobActions {
    return new WatchedCronJobActions(this.options);
  }

  async start(): Promise<void> {
    // Fail at start, with a message, rather than at the first request.
    await this.call(() => this.options.cluster.listCustom('scheduledjobs', this.options.namespace));
  }

  async stop(): Promise<void> {
    // Nothing runs here: the cluster's runs go on without the service.
  }

  /**
   * Patches the job's ScheduledJob, or creates it where there is none. A creation made for a
   * caller creates first: a caller who may create ScheduledJobs need not be allowed to patch them
   * (one that exists already, left by a creation whose transaction then failed, is patched).
   */
  async jobSaved(job: Job, _rowVersion?: string, change: JobChange = {}): Promise<void> {
    const home = this.options.namespace;
    const cluster = this.clusterFor(change.by);
    // A job being created is not in the database for this read yet (its transaction is open):
    // its namespace comes with it, its resource's name from its name there (kube/placement.ts).
    const stored = await resourceOfJob(this.options.pool, job.id);
    const namespace = stored?.namespace ?? job.namespace ?? home;
    const localName = nameInNamespace(job.name, namespace, home);
    const resource = stored ?? { namespace, name: crNameForJobName(localName) };
    const patch = () =>
      cluster.patchScheduledJob(resource.namespace, resource.name, patchOfJob(job, resource.name, localName));
    const create = () =>
      cluster.createScheduledJob(resource.namespace, scheduledJobOfJob(job, resource.namespace, localName));
    const first = change.by && change.created ? 'create' : 'patch';
    try {
      await (first === 'create' ? create() : patch());
      return;
    } catch (error) {
      if (statusOf(error) !== (first === 'create' ? 409 : 404)) throw this.refusal(error, change.by);
    }
    try {
      await (first === 'create' ? patch() : create());
    } catch (error) {
      if (statusOf(error) === 409) {
        throw conflict(
          `a ScheduledJob named "${resource.name}" already exists in namespace ${resource.namespace}`,
        );
      }
      throw this.refusal(error, change.by);
    }
  }

  async jobDeleted(jobId: number, by: Caller | null = null): Promise<void> {
    const job = await findJob(this.options.pool, jobId);
    const resource =
      (await resourceOfJob(this.options.pool, jobId)) ??
      (job ? { namespace: this.options.namespace, name: crNameForJobName(job.name) } : null);
    if (!resource) return;
    try {
      await this.clusterFor(by).deleteScheduledJob(resource.namespace, resource.name);
    } catch (error) {
      if (statusOf(error) !== 404) throw this.refusal(error, by);
    }
  }

  /**
   * Creates a Job from the CronJob's template. One made for a caller records who made it (by the
   * Job's UID), for the executions its pod reports: a pod starts seconds after its Job is created,
   * long after this write.
   */
  async runNow(job: Job, by: Caller | null = null): Promise<void> {
    const { namespace, cronJob } = await this.cronJobOf(job, by);
    const created = await this.call(
      () => this.clusterFor(by).createJob(namespace, manualJobFromCronJob(cronJob)),
      by,
    );
    const runUid = created.metadata?.uid;
    if (!by || !runUid) return;
    try {
      await recordRunTrigger(this.options.pool, { runUid, jobId: job.id, triggeredBy: by.username });
    } catch (error) {
      // The run is started: it goes on, only without the name of who started it.
      this.options.logger.warn('could not record who started a run', { jobId: job.id, runUid, err: error });
    }
  }

  /**
   * The backfill is recorded. Asked for by a caller (SERVICE_AUTH=kubernetes), every slot's Job is
   * created now with the caller's own token, suspended, so that RBAC, admission and the audit log
   * judge and name the person; the leading controller then resumes them `concurrency` at a time
   * (controller/slotRuns/slotRunner.ts). Otherwise the controller creates them, as itself, as it
   * does a catch-up's. Refused, so that it is not left waiting, while the job has no CronJob to
   * make them from.
   */
  async backfill(job: Job, backfill: Backfill, by: Caller | null = null): Promise<void> {
    const { namespace, cronJob } = await this.cronJobOf(job, by);
    if (!by || backfill.callerJobs !== 'creating') return;
    const cluster = this.clusterFor(by);
    const created: string[] = [];
    try {
      for (let i = 0; i < backfill.slots.length; i += CREATES_AT_ONCE) {
        const kubeJobs = backfill.slots
          .slice(i, i + CREATES_AT_ONCE)
          .map((slot) =>
            suspended(slotRunJob(cronJob, { slot, trigger: 'backfill', backfillId: backfill.id })),
          );
        // Every creation of the batch answered before any is judged: none is left unaccounted for.
        const answers = await Promise.allSettled(kubeJobs.map((each) => cluster.createJob(namespace, each)));
        answers.forEach((answer, k) => {
          if (answer.status === 'fulfilled') created.push(kubeJobs[k]!.metadata!.name!);
        });
        const refused = answers.find((answer) => answer.status === 'rejected');
        if (refused) throw refused.reason;
      }
      await markBackfillJobsCreated(this.options.pool, backfill.id);
    } catch (error) {
      await this.removeJobs(cluster, namespace, created, backfill.id);
      throw this.refusal(error, by);
    }
  }

  /** A backfill refused half-way runs none of its slots: the Jobs made for it go (best effort). */
  private async removeJobs(cluster: ClusterClient, namespace: string, names: string[], backfillId: number) {
    for (const name of names) {
      try {
        await cluster.deleteJob(namespace, name);
      } catch (error) {
        if (statusOf(error) === 404) continue;
        this.options.logger.warn('could not delete a Job of a refused backfill; it stays suspended', {
          backfillId,
          kubernetesJob: `${namespace}/${name}`,
          err: error,
        });
      }
    }
  }

  /**
   * Before the backfill is recorded, the caller's own token creates one of its Jobs in a dry run
   * (`dryRun=All`: RBAC and admission, nothing stored), so that a backfill whose runs the cluster
   * would not let them start is refused before anything is recorded or created.
   */
  async checkBackfill(job: Job, by: Caller): Promise<void> {
    const { namespace, cronJob } = await this.cronJobOf(job, by);
    await this.call(
      () => this.clusterFor(by).createJob(namespace, manualJobFromCronJob(cronJob), { dryRun: true }),
      by,
    );
  }

  /** The CronJob of a job's ScheduledJob, read as `by`; a conflict while the controller has not made it. */
  private async cronJobOf(job: Job, by: Caller | null): Promise<{ namespace: string; cronJob: V1CronJob }> {
    // A watched CronJob's job (issue 40) is its CronJob's; a ScheduledJob's, the one the controller makes.
    const resource = job.cronJob ? null : await resourceOfJob(this.options.pool, job.id);
    const where = job.cronJob
      ? { namespace: job.cronJob.namespace, name: job.cronJob.name }
      : resource && { namespace: resource.namespace, name: cronJobNameFor(resource.name) };
    const notYet = job.cronJob
      ? conflict(`CronJob ${job.cronJob.namespace}/${job.cronJob.name} of job ${job.id} is gone`)
      : conflict(`job ${job.id} has no CronJob yet: the controller has not reconciled it`);
    if (!where) throw notYet;
    try {
      return {
        namespace: where.namespace,
        cronJob: await this.clusterFor(by).readCronJob(where.namespace, where.name),
      };
    } catch (error) {
      throw statusOf(error) === 404 ? notYet : this.refusal(error, by);
    }
  }

  /** The client a change is written with: the caller's own, else the service's. */
  private clusterFor(by: Caller | null | undefined): ClusterClient {
    return by && this.options.clusterOf ? this.options.clusterOf(by) : this.options.cluster;
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

  private async call<T>(request: () => Promise<T>, by: Caller | null = null): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.refusal(error, by);
    }
  }

  /**
   * A 422 is the caller's input the cluster refused (400); a 401 or 403 of a write made with the
   * caller's own token is the caller's (403: what RBAC or admission said); anything else is the
   * cluster's (503).
   */
  private refusal(error: unknown, by: Caller | null = null): Error {
    if (statusOf(error) === 422) return invalid(`the cluster refused the job: ${apiMessage(error)}`);
    const status = statusOf(error);
    if (by && this.options.clusterOf && (status === 401 || status === 403)) {
      return forbidden(`the cluster refused the request made with your credentials: ${apiMessage(error)}`);
    }
    this.options.logger.warn('the cluster refused a request', { err: error });
    return new RuntimeRefusedError(`the cluster refused the change: ${apiMessage(error)}`, { cause: error });
  }
}
