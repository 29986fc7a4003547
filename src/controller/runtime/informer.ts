import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
} from '@kubernetes/client-node';
import type { Logger } from '../../logging/logger';
import { SharedValues } from './sharedValues';

export interface WatchedKind<T extends KubernetesObject> {
  /** For logs: "scheduledjobs", "cronjobs"... */
  resource: string;
  /** The watch path, e.g. /apis/batch/v1/namespaces/NS/cronjobs (or the cluster-wide one). */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  labelSelector?: string;
}

export interface CachedInformer<T extends KubernetesObject> extends ObjectCache<T> {
  /** Resolves once the first list has filled the cache. */
  synced: Promise<void>;
  stop(): Promise<void>;
}

/** Written by `kubectl apply` (client-side): the whole object again, as JSON. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** One pool for every cache of the process: the kinds share namespaces, labels and names. */
const shared = new SharedValues();

/**
 * Drops what the controller never reads from an object the cache keeps (client-node's cache keeps
 * the very object it hands to the listeners): the managed fields, which list every field of the
 * object once per writer, and `kubectl apply`'s copy of the object. At 5,000 ScheduledJobs with
 * their CronJobs they were about half of the controller's heap. The controller writes with patches
 * and builds what it replaces from the spec, so nothing it sends is derived from a cached object.
 *
 * What is left of the spec and the labels and annotations points to the copies other objects hold
 * of the same small parts (sharedValues.ts): the CronJobs of 5,000 ScheduledJobs differ in a few
 * fields each. Those parts are frozen; the controller only reads cached objects.
 */
function slimmed<T extends KubernetesObject>(object: T): T {
  const metadata = object.metadata;
  if (metadata) {
    delete metadata.managedFields;
    if (metadata.annotations?.[LAST_APPLIED] !== undefined) {
      delete metadata.annotations[LAST_APPLIED];
      if (Object.keys(metadata.annotations).length === 0) delete metadata.annotations;
    }
    if (metadata.namespace !== undefined) metadata.namespace = shared.share(metadata.namespace);
    if (metadata.labels) metadata.labels = shared.share(metadata.labels);
    if (metadata.annotations) metadata.annotations = shared.share(metadata.annotations);
  }
  const withSpec = object as T & { spec?: unknown };
  if (withSpec.spec !== undefined) withSpec.spec = shared.share(withSpec.spec);
  return object;
}

/**
 * A cache of one kind kept current by list and watch (client-node's informer), calling `onChange`
 * with every object added, changed or deleted. client-node re-lists by itself after 410 Gone but
 * stops for good on any other error (the API server away, a 403): here it is started again with a
 * backoff, so the cache heals when the cluster does.
 */
export function startInformer<T extends KubernetesObject>(
  kc: KubeConfig,
  kind: WatchedKind<T>,
  onChange: (object: T, event: 'add' | 'update' | 'delete') => void,
  logger: Logger,
): CachedInformer<T> {
  const informer = makeInformer<T>(kc, kind.path, kind.list, kind.labelSelector);
  let stopped = false;
  let restartDelay = 500;
  let restartTimer: NodeJS.Timeout | undefined;
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  informer.on('add', (object) => onChange(slimmed(object), 'add'));
  informer.on('update', (object) => onChange(slimmed(object), 'update'));
  informer.on('delete', (object) => onChange(slimmed(object), 'delete'));
  informer.on('connect', () => {
    restartDelay = 500;
  });
  let failedSinceStart = false;
  informer.on('error', (error) => {
    failedSinceStart = true;
    if (stopped) return;
    logger.warn('watch failed; starting it again', {
      resource: kind.resource,
      delayMs: restartDelay,
      err: error,
    });
    restartTimer = setTimeout(() => {
      if (!stopped) void start();
    }, restartDelay);
    restartTimer.unref();
    restartDelay = Math.min(restartDelay * 2, 30_000);
  });

  const start = async () => {
    failedSinceStart = false;
    try {
      // Resolves once the watch is open, or after the error listener heard why the list failed.
      await informer.start();
      if (!failedSinceStart) markSynced();
    } catch (error) {
      // start() itself only fails before its first list; the error listener above retries it.
      logger.warn('could not start a watch', { resource: kind.resource, err: error });
    }
  };
  void start();

  return {
    synced,
    get: (name, namespace) => informer.get(name, namespace),
    list: (namespace) => informer.list(namespace),
    async stop() {
      stopped = true;
      clearTimeout(restartTimer);
      await informer.stop();
    },
  };
}
