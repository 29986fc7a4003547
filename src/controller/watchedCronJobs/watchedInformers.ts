import type { KubeConfig, KubernetesObject, V1CronJob, V1Job, V1Pod } from '@kubernetes/client-node';
import type { Logger } from '../../logging/logger';
import type { ClusterClient } from '../../kube/clusterClient';
import { LABEL_MANAGED_BY, MANAGED_BY_CRONDECK } from '../../kube/labels';
import type { CronJobWatch } from '../../kube/resources/cronJobWatch';
import { type CachedInformer, startInformer } from '../runtime/informer';

/**
 * Everything but what Crondeck made (the ScheduledJobs' CronJobs, Jobs and pods, which the
 * controller's other caches hold): a plain CronJob carries no label Crondeck could select it by.
 */
const NOT_CRONDECKS = `${LABEL_MANAGED_BY}!=${MANAGED_BY_CRONDECK}`;

/** The pods of Jobs (the Job controller labels each with its Job's UID) that are not Crondeck's. */
const JOB_PODS_NOT_CRONDECKS = `batch.kubernetes.io/controller-uid,${NOT_CRONDECKS}`;

type Event = 'add' | 'update' | 'delete';

export interface WatchedCronJobInformers {
  watches: CachedInformer<CronJobWatch>;
  /** Every CronJob of the watched namespaces that Crondeck did not make. */
  cronJobs: CachedInformer<V1CronJob>;
  /** Every Job of those namespaces that Crondeck did not make (a CronJob's Jobs carry no label of it). */
  jobs: CachedInformer<V1Job>;
  pods: CachedInformer<V1Pod>;
  synced(): Promise<void>;
  stop(): Promise<void>;
}

/** The caches behind watched CronJobs (issue 40), and what each change asks to reconcile. */
export function startWatchedCronJobInformers(
  deps: { cluster: ClusterClient; namespace: string | null; kubeConfig: KubeConfig; logger: Logger },
  changed: {
    watchChanged: (namespace: string) => void;
    cronJobChanged: (namespace: string, name: string) => void;
    jobChanged: (job: V1Job, event: Event) => void;
    podChanged: (pod: V1Pod, event: Event) => void;
  },
): WatchedCronJobInformers {
  const { cluster, namespace, kubeConfig, logger } = deps;
  const namespaceOf = (object: KubernetesObject) => object.metadata?.namespace ?? '';
  const watches = startInformer<CronJobWatch>(
    kubeConfig,
    {
      resource: 'cronjobwatches',
      path: cluster.customPath('cronjobwatches', namespace),
      list: () => cluster.listCustom('cronjobwatches', namespace),
    },
    (watch) => changed.watchChanged(namespaceOf(watch)),
    logger,
  );
  const cronJobs = startInformer<V1CronJob>(
    kubeConfig,
    {
      resource: 'cronjobs',
      path: cluster.cronJobsPath(namespace),
      list: () => cluster.listCronJobs(namespace, NOT_CRONDECKS),
      labelSelector: NOT_CRONDECKS,
    },
    (cronJob) => changed.cronJobChanged(namespaceOf(cronJob), cronJob.metadata?.name ?? ''),
    logger,
  );
  const jobs = startInformer<V1Job>(
    kubeConfig,
    {
      resource: 'jobs',
      path: cluster.jobsPath(namespace),
      list: () => cluster.listJobs(namespace, NOT_CRONDECKS),
      labelSelector: NOT_CRONDECKS,
    },
    changed.jobChanged,
    logger,
  );
  const pods = startInformer<V1Pod>(
    kubeConfig,
    {
      resource: 'pods',
      path: cluster.podsPath(namespace),
      list: () => cluster.listPods(namespace, JOB_PODS_NOT_CRONDECKS),
      labelSelector: JOB_PODS_NOT_CRONDECKS,
    },
    changed.podChanged,
    logger,
  );
  const all = [watches, cronJobs, jobs, pods];
  return {
    watches,
    cronJobs,
    jobs,
    pods,
    async synced() {
      await Promise.all(all.map((informer) => informer.synced));
    },
    async stop() {
      await Promise.all(all.map((informer) => informer.stop()));
    },
  };
}
