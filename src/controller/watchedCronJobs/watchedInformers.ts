import type { KubeConfig, KubernetesObject, V1CronJob } from '@kubernetes/client-node';
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

export interface WatchedCronJobInformers {
  watches: CachedInformer<CronJobWatch>;
  /** Every CronJob of the watched namespaces that Crondeck did not make. */
  cronJobs: CachedInformer<V1CronJob>;
  synced(): Promise<void>;
  stop(): Promise<void>;
}

/** The caches behind watched CronJobs (issue 40), and what each change asks to reconcile. */
export function startWatchedCronJobInformers(
  deps: { cluster: ClusterClient; namespace: string | null; kubeConfig: KubeConfig; logger: Logger },
  changed: {
    watchChanged: (namespace: string) => void;
    cronJobChanged: (namespace: string, name: string) => void;
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
  const all = [watches, cronJobs];
  return {
    watches,
    cronJobs,
    async synced() {
      await Promise.all(all.map((informer) => informer.synced));
    },
    async stop() {
      await Promise.all(all.map((informer) => informer.stop()));
    },
  };
}
