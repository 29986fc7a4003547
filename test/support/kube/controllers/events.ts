import type { KubeEmulator } from '../emulator';
import { rfc3339, type Obj } from '../types';

/**
 * A controller's core/v1 Event about `object` (kcm's event recorder, as 08 #28 and 09 #22 show
 * them): named OBJECT.<the time in nanoseconds, hex> (so a list by name is in time order), the object's reference as it was when the controller saw it.
 * The recorder's correlation is kept too: the same event again (source, object, type, reason,
 * message) raises `count` and `lastTimestamp` of the first one instead (08 #36's UnexpectedJob).
 */
export function recordEvent(
  emu: KubeEmulator,
  object: Obj,
  component: string,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): void {
  const t = rfc3339(emu.now());
  const { name, namespace, uid } = object.metadata;
  const same = emu
    .objects('events', namespace)
    .find(
      (e) =>
        e.source?.component === component &&
        e.involvedObject?.uid === uid &&
        e.type === type &&
        e.reason === reason &&
        e.message === message,
    );
  if (same) {
    same.count = (same.count ?? 1) + 1;
    same.lastTimestamp = t;
    emu.store.put('/events', same, 'MODIFIED');
  } else {
    emu.seed(emu.typeByName('/events'), {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name}.${eventSuffix(emu.now())}`, namespace },
      involvedObject: {
        kind: object.kind,
        namespace,
        name,
        uid,
        apiVersion: object.apiVersion,
        resourceVersion: object.metadata.resourceVersion,
      },
      reason,
      message,
      source: { component },
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: component,
      reportingInstance: '',
    });
  }
  emu.afterWrite();
}

let lastSuffix = 0n;

/** The recorder's `%x` of UnixNano; kept increasing when two events share a millisecond. */
function eventSuffix(now: Date): string {
  const nanos = BigInt(now.getTime()) * 1_000_000n;
  lastSuffix = nanos > lastSuffix ? nanos : lastSuffix + 1n;
  return lastSuffix.toString(16);
}
