import type { ClusterClient } from '../../kube/clusterClient';
import type { RunWarning } from './watchedAttempts';

/**
 * The Warning events of a run's Job and pods (FailedScheduling, BackoffLimitExceeded, FailedMount,
 * BackOff...), oldest first: one list per object, selected by its UID, so no other object's events
 * are read.
 */
export async function warningsOf(
  cluster: ClusterClient,
  namespace: string,
  uids: string[],
): Promise<RunWarning[]> {
  const found: { at: number; warning: RunWarning }[] = [];
  for (const uid of uids) {
    const { items } = await cluster.listWarningEvents(namespace, uid);
    for (const event of items) {
      const at = event.lastTimestamp ?? event.eventTime ?? event.metadata.creationTimestamp;
      found.push({
        at: at ? new Date(at).getTime() : 0,
        warning: {
          object: `${event.involvedObject.kind ?? ''} ${event.involvedObject.name ?? ''}`.trim(),
          reason: event.reason ?? '',
          message: event.message ?? '',
          count: event.count ?? 1,
        },
      });
    }
  }
  return found.sort((a, b) => a.at - b.at).map(({ warning }) => warning);
}
