import type { Caller } from '../../domain/caller';
import { conflict, forbidden, invalid } from '../../domain/errors';
import type { Job } from '../../domain/job';
import { apiMessage, statusOf } from '../../kube/apiErrors';
import type { ClusterClient } from '../../kube/clusterClient';
import type { Logger } from '../../logging/logger';
import { RuntimeRefusedError } from '../runtimeRefused';
import { manualJobFromCronJob } from './manualRun';

/** What a runtime can do to a watched CronJob (issue 40): only on a cluster. */
export interface WatchedCronJobRuntime {
  /** A Job from the CronJob's template, as `kubectl create job --from=cronjob/…` makes it. */
  runNow(job: Job, by: Caller | null): Promise<void>;
  /** The toggle: the CronJob's own `spec.suspend`, which the controller mirrors back into the job. */
  setSuspended(job: Job, suspend: boolean, by: Caller | null): Promise<void>;
}

/**
 * Run now and the toggle of a watched CronJob's job, written to the CronJob itself: with the
 * caller's own token where the service acts for callers (SERVICE_AUTH=kubernetes), so that RBAC
 * (`create jobs`, `get` and `patch cronjobs` in its namespace), admission and the audit log see the
 * person; else with the service's.
 */
export class WatchedCronJobActions implements WatchedCronJobRuntime {
  constructor(
    private readonly options: {
      cluster: ClusterClient;
      clusterOf?: (caller: Caller) => ClusterClient;
      logger: Logger;
    },
  ) {}

  async runNow(job: Job, by: Caller | null): Promise<void> {
    const { namespace, name } = watched(job);
    const cluster = this.clusterFor(by);
    await this.call(
      async () => {
        const cronJob = await cluster.readCronJob(namespace, name);
        await cluster.createJob(namespace, manualJobFromCronJob(cronJob));
      },
      job,
      by,
    );
  }

  async setSuspended(job: Job, suspend: boolean, by: Caller | null): Promise<void> {
    const { namespace, name } = watched(job);
    await this.call(() => this.clusterFor(by).patchCronJob(namespace, name, { spec: { suspend } }), job, by);
  }

  private clusterFor(by: Caller | null): ClusterClient {
    return by && this.options.clusterOf ? this.options.clusterOf(by) : this.options.cluster;
  }

  /**
   * A refusal read as the Kubernetes runtime reads one: the CronJob gone (409), the caller's own
   * 401/403 (403), a 422 (400), anything else the cluster's (503).
   */
  private async call(request: () => Promise<unknown>, job: Job, by: Caller | null): Promise<void> {
    try {
      await request();
    } catch (error) {
      const status = statusOf(error);
      const { namespace, name } = watched(job);
      if (status === 404) throw conflict(`CronJob ${namespace}/${name} no longer exists`);
      if (status === 422) throw invalid(`the cluster refused the request: ${apiMessage(error)}`);
      if (by && this.options.clusterOf && (status === 401 || status === 403)) {
        throw forbidden(`the cluster refused the request made with your credentials: ${apiMessage(error)}`);
      }
      this.options.logger.warn('the cluster refused a request', { err: error });
      throw new RuntimeRefusedError(`the cluster refused the change: ${apiMessage(error)}`, { cause: error });
    }
  }
}

function watched(job: Job): { namespace: string; name: string } {
  if (!job.cronJob) throw new Error(`job ${job.id} is no watched CronJob's`);
  return job.cronJob;
}
