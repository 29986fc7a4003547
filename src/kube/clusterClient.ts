import {
  type CoreV1EventList,
  KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1CronJob,
  type V1Job,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import type { Logger } from '../logging/logger';
import type { AlertConfigResource } from './resources/alertConfig';
import type { CronJobWatch } from './resources/cronJobWatch';
import { CRONDECK_GROUP, CRONDECK_VERSION } from './resources/group';
import type { ScheduledJob } from './resources/scheduledJob';
import { LeanBatchV1Api, LeanCoordinationV1Api, LeanCoreV1Api, LeanCustomObjectsApi } from './leanApis';
import { type RetryAfterPolicy, retryingApiClient } from './retryAfter';

/** The identity the controller writes under (`managedFields`, audit logs). */
const FIELD_MANAGER = 'crondeck-controller';

type CustomPlural = 'scheduledjobs' | 'alertconfigs' | 'cronjobwatches';

/**
 * Every request the controller and the Kubernetes runtime make, over the real client-node. One
 * place, so the verbs and content types used (and so the RBAC the chart grants) can be read off it.
 * `namespace` null means all namespaces (lists and watches only). Every client waits and sends a
 * request again when the API server asks it to (429 while a CRD's storage initialises, see
 * retryAfter.ts).
 */
export class ClusterClient {
  readonly custom: LeanCustomObjectsApi;
  readonly batch: LeanBatchV1Api;
  readonly core: LeanCoreV1Api;
  /** The leader election's Leases. */
  readonly coordination: LeanCoordinationV1Api;

  constructor(
    readonly kubeConfig: KubeConfig,
    logger: Logger,
  ) {
    const policy: Partial<RetryAfterPolicy> = {
      onRetry: (retry) => logger.info('the API server asked to wait; sending the request again', retry),
    };
    this.custom = retryingApiClient(kubeConfig, LeanCustomObjectsApi, policy);
    this.batch = retryingApiClient(kubeConfig, LeanBatchV1Api, policy);
    this.core = retryingApiClient(kubeConfig, LeanCoreV1Api, policy);
    this.coordination = retryingApiClient(kubeConfig, LeanCoordinationV1Api, policy);
  }

  // --- ScheduledJob and AlertConfig -------------------------------------------------------------

  customPath(plural: CustomPlural, namespace: string | null): string {
    const scope = namespace ? `/namespaces/${namespace}` : '';
    return `/apis/${CRONDECK_GROUP}/${CRONDECK_VERSION}${scope}/${plural}`;
  }

  listCustom<T extends ScheduledJob | AlertConfigResource | CronJobWatch>(
    plural: CustomPlural,
    namespace: string | null,
  ): Promise<KubernetesListObject<T>> {
    const common = { group: CRONDECK_GROUP, version: CRONDECK_VERSION, plural };
    return namespace
      ? this.custom.listNamespacedCustomObject({ ...common, namespace })
      : this.custom.listClusterCustomObject(common);
  }

  getScheduledJob(namespace: string, name: string): Promise<ScheduledJob> {
    return this.custom.getNamespacedCustomObject({ ...this.sj(namespace), name });
  }

  createScheduledJob(namespace: string, body: object): Promise<ScheduledJob> {
    return this.custom.createNamespacedCustomObject({
      ...this.sj(namespace),
      body,
      fieldManager: FIELD_MANAGER,
    });
  }

  /** A merge patch of the main resource (spec, labels, finalizers); with `resourceVersion` in the
   *  patch's metadata it applies only to that version (409 otherwise). */
  patchScheduledJob(namespace: string, name: string, patch: object): Promise<ScheduledJob> {
    return this.custom.patchNamespacedCustomObject({
      ...this.sj(namespace),
      name,
      body: patch,
      fieldManager: FIELD_MANAGER,
    });
  }

  patchScheduledJobStatus(namespace: string, name: string, status: object): Promise<ScheduledJob> {
    return this.custom.patchNamespacedCustomObjectStatus({
      ...this.sj(namespace),
      name,
      body: { status },
      fieldManager: FIELD_MANAGER,
    });
  }

  deleteScheduledJob(namespace: string, name: string): Promise<unknown> {
    return this.custom.deleteNamespacedCustomObject({ ...this.sj(namespace), name });
  }

  patchAlertConfig(namespace: string, name: string, patch: object): Promise<AlertConfigResource> {
    return this.custom.patchNamespacedCustomObject({
      ...this.ac(namespace),
      name,
      body: patch,
      fieldManager: FIELD_MANAGER,
    });
  }

  patchAlertConfigStatus(namespace: string, name: string, status: object): Promise<AlertConfigResource> {
    return this.custom.patchNamespacedCustomObjectStatus({
      ...this.ac(namespace),
      name,
      body: { status },
      fieldManager: FIELD_MANAGER,
    });
  }

  patchCronJobWatchStatus(namespace: string, name: string, status: object): Promise<CronJobWatch> {
    return this.custom.patchNamespacedCustomObjectStatus({
      group: CRONDECK_GROUP,
      version: CRONDECK_VERSION,
      plural: 'cronjobwatches',
      namespace,
      name,
      body: { status },
      fieldManager: FIELD_MANAGER,
    });
  }

  // --- CronJobs and Jobs --------------------------------------------------------------------------

  cronJobsPath(namespace: string | null): string {
    return namespace ? `/apis/batch/v1/namespaces/${namespace}/cronjobs` : '/apis/batch/v1/cronjobs';
  }

  listCronJobs(namespace: string | null, labelSelector: string): Promise<KubernetesListObject<V1CronJob>> {
    return inPages((page) =>
      namespace
        ? this.batch.listNamespacedCronJob({ namespace, labelSelector, ...page })
        : this.batch.listCronJobForAllNamespaces({ labelSelector, ...page }),
    );
  }

  createCronJob(namespace: string, body: V1CronJob): Promise<V1CronJob> {
    return this.batch.createNamespacedCronJob({ namespace, body, fieldManager: FIELD_MANAGER });
  }

  replaceCronJob(namespace: string, name: string, body: V1CronJob): Promise<V1CronJob> {
    return this.batch.replaceNamespacedCronJob({ namespace, name, body, fieldManager: FIELD_MANAGER });
  }

  readCronJob(namespace: string, name: string): Promise<V1CronJob> {
    return this.batch.readNamespacedCronJob({ namespace, name });
  }

  patchCronJob(namespace: string, name: string, patch: object): Promise<V1CronJob> {
    return this.batch.patchNamespacedCronJob({ namespace, name, body: patch, fieldManager: FIELD_MANAGER });
  }

  jobsPath(namespace: string | null): string {
    return namespace ? `/apis/batch/v1/namespaces/${namespace}/jobs` : '/apis/batch/v1/jobs';
  }

  listJobs(namespace: string | null, labelSelector: string): Promise<KubernetesListObject<V1Job>> {
    return inPages((page) =>
      namespace
        ? this.batch.listNamespacedJob({ namespace, labelSelector, ...page })
        : this.batch.listJobForAllNamespaces({ labelSelector, ...page }),
    );
  }

  /** With `dryRun`, the API server checks and admits the Job (RBAC, admission) and stores nothing. */
  createJob(namespace: string, body: V1Job, options: { dryRun?: boolean } = {}): Promise<V1Job> {
    return this.batch.createNamespacedJob({
      namespace,
      body,
      fieldManager: FIELD_MANAGER,
      ...(options.dryRun ? { dryRun: 'All' as const } : {}),
    });
  }

  patchJob(namespace: string, name: string, patch: object): Promise<V1Job> {
    return this.batch.patchNamespacedJob({ namespace, name, body: patch, fieldManager: FIELD_MANAGER });
  }

  /** Deletes a Job and, after it, its pods (as `kubectl delete job` does). */
  async deleteJob(namespace: string, name: string): Promise<void> {
    await this.batch.deleteNamespacedJob({ namespace, name, propagationPolicy: 'Background' });
  }

  // --- Pods (read only: what a run's pods say of its end) ---------------------------------------

  podsPath(namespace: string | null): string {
    return namespace ? `/api/v1/namespaces/${namespace}/pods` : '/api/v1/pods';
  }

  listPods(namespace: string | null, labelSelector: string): Promise<KubernetesListObject<V1Pod>> {
    return inPages((page) =>
      namespace
        ? this.core.listNamespacedPod({ namespace, labelSelector, ...page })
        : this.core.listPodForAllNamespaces({ labelSelector, ...page }),
    );
  }

  /** A container's last lines of log; null while the pod is on no node yet (a 204). */
  readPodLogTail(
    namespace: string,
    name: string,
    container: string,
    tailLines: number,
    timeoutMs: number,
  ): Promise<string | null> {
    return this.core.readPodLogTail({ namespace, name, container, tailLines, timeoutMs });
  }

  listWarningEvents(namespace: string, involvedUid: string): Promise<CoreV1EventList> {
    return this.core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.uid=${involvedUid},type=Warning`,
    });
  }

  // --- Secrets ------------------------------------------------------------------------------------

  secretsPath(namespace: string | null): string {
    return namespace ? `/api/v1/namespaces/${namespace}/secrets` : '/api/v1/secrets';
  }

  listSecrets(namespace: string | null, labelSelector: string): Promise<KubernetesListObject<V1Secret>> {
    return namespace
      ? this.core.listNamespacedSecret({ namespace, labelSelector })
      : this.core.listSecretForAllNamespaces({ labelSelector });
  }

  readSecret(namespace: string, name: string): Promise<V1Secret> {
    return this.core.readNamespacedSecret({ namespace, name });
  }

  createSecret(namespace: string, body: V1Secret): Promise<V1Secret> {
    return this.core.createNamespacedSecret({ namespace, body, fieldManager: FIELD_MANAGER });
  }

  /** A merge patch: `{ data: { key: value } }` sets keys, `{ data: { key: null } }` removes them. */
  patchSecret(namespace: string, name: string, patch: object): Promise<V1Secret> {
    return this.core.patchNamespacedSecret({ namespace, name, body: patch, fieldManager: FIELD_MANAGER });
  }

  private sj(namespace: string) {
    return { group: CRONDECK_GROUP, version: CRONDECK_VERSION, namespace, plural: 'scheduledjobs' };
  }

  private ac(namespace: string) {
    return { group: CRONDECK_GROUP, version: CRONDECK_VERSION, namespace, plural: 'alertconfigs' };
  }
}

/**
 * A client of `base`'s cluster (the same server, CA and TLS settings) that authenticates with
 * `token` alone, and none of `base`'s own credentials (its token, client certificate, exec plugin):
 * the cluster writes the service makes for a caller (SERVICE_AUTH=kubernetes), which RBAC,
 * admission and the audit log then see as the caller's.
 */
export function clusterClientWithToken(base: KubeConfig, token: string, logger: Logger): ClusterClient {
  const cluster = base.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the kubeconfig');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'caller', token }],
    contexts: [{ name: 'caller', cluster: cluster.name, user: 'caller' }],
    currentContext: 'caller',
  });
  return new ClusterClient(kubeConfig, logger);
}

/** How many objects one page of a list of CronJobs, Jobs or pods holds (client-go's informers ask 500). */
export const LIST_PAGE_SIZE = 500;

/**
 * A whole list read page by page (`limit`, then each page's `continue` token), as client-go's
 * informers list: all pages come from one snapshot, whose resourceVersion the first page carries
 * (what a watch starts from). A namespace's 10,000 Jobs then never arrive as one response, whose
 * text and the two copies its parsing makes would be held at once beside the cache.
 */
async function inPages<T extends KubernetesObject>(
  page: (at: { limit: number; _continue?: string }) => Promise<KubernetesListObject<T>>,
): Promise<KubernetesListObject<T>> {
  const first = await page({ limit: LIST_PAGE_SIZE });
  const items = first.items;
  let next = first.metadata?._continue;
  while (next) {
    const more = await page({ limit: LIST_PAGE_SIZE, _continue: next });
    for (const item of more.items) items.push(item);
    next = more.metadata?._continue;
  }
  return { ...first, metadata: { ...first.metadata, _continue: undefined }, items };
}
