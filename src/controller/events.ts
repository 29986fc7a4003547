import { randomBytes } from 'node:crypto';
import type { CoreV1Api, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../logging/logger';

export type EventType = 'Normal' | 'Warning';

/**
 * Writes core/v1 Events about our resources, for `kubectl describe`. Level-triggered reconciling
 * sees the same situation again and again (every resync, every requeue): an event is written when
 * what is said about an object changes, not each time it is seen. Writing an event never fails a
 * reconcile: events are informative.
 */
export class EventRecorder {
  private readonly lastSaid = new Map<string, string>();

  constructor(
    private readonly core: Pick<CoreV1Api, 'createNamespacedEvent'>,
    private readonly component: string,
    private readonly instance: string,
    private readonly logger: Logger,
  ) {}

  async record(object: KubernetesObject, type: EventType, reason: string, message: string): Promise<void> {
    const { uid, name, namespace, resourceVersion } = object.metadata ?? {};
    if (!uid || !name || !namespace) return;
    const said = `${type}/${reason}/${message}`;
    if (this.lastSaid.get(uid) === said) return;
    this.lastSaid.set(uid, said);
    const now = new Date();
    try {
      await this.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace },
          involvedObject: {
            apiVersion: object.apiVersion,
            kind: object.kind,
            name,
            namespace,
            uid,
            resourceVersion,
          },
          type,
          reason,
          message,
          source: { component: this.component },
          reportingComponent: this.component,
          reportingInstance: this.instance,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (error) {
      this.lastSaid.delete(uid);
      this.logger.warn('could not record an event', { object: `${namespace}/${name}`, reason, err: error });
    }
  }

  /** Forgets a deleted object. */
  forget(uid: string | undefined): void {
    if (uid) this.lastSaid.delete(uid);
  }
}
