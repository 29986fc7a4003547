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

type CacheEvent = 'add' | 'update' | 'delete';

export interface InformerDeps {
  cluster: ClusterClient;
  kubeConfig: KubeConfig;
  logger: Logger;
}

/** The CronJobWatches of the controller's scope (`namespace`, or all when null). */
export function startWatchesInformer(
  { cluster, kubeConfig, logger }: InformerDeps,
  namespace: string | null,
  watchChanged: (namespace: string) => void,
): CachedInformer<CronJobWatch> {
  return startInformer<CronJobWatch>(
    kubeConfig,
    {
      resource: 'cronjobwatches',
      path: cluster.customPath('cronjobwatches', namespace),
      list: () => cluster.listCustom('cronjobwatches', namespace),
    },
    (watch) => watchChanged(namespaceOf(watch)),
    logger,
  );
}

/** What one namespace holding a CronJobWatch is watched for: what Crondeck did not make. */
export interface NamespaceInformers {
  cronJobs: CachedInformer<V1CronJob>;
  /** A CronJob's Jobs carry no label of it: every Job of the namespace that Crondeck did not make. */
  jobs: CachedInformer<V1Job>;
  pods: CachedInformer<V1Pod>;
  synced: Promise<void>;
  stop(): Promise<void>;
}

export interface NamespaceChanges {
  cronJobChanged: (namespace: string, name: string) => void;
  jobChanged: (job: V1Job, event: CacheEvent) => void;
  podChanged: (pod: V1Pod, event: CacheEvent) => void;
}

/** The CronJobs, Jobs and Job pods of one namespace, and what each change asks to reconcile. */
export function startNamespaceInformers(
  { cluster, kubeConfig, logger }: InformerDeps,
  namespace: string,
  changed: NamespaceChanges,
): NamespaceInformers {
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
  const all = [cronJobs, jobs, pods];
  return {
    cronJobs,
    jobs,
    pods,
    synced: Promise.all(all.map((informer) => informer.synced)).then(() => undefined),
    async stop() {
      await Promise.all(all.map((informer) => informer.stop()));
    },
  };
}

function namespaceOf(object: KubernetesObject): string {
  return object.metadata?.namespace ?? '';
}
