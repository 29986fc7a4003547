import type { V1Pod } from '@kubernetes/client-node';
import { boundedOutput } from '../../domain/outputTail';
import { apiMessage, statusOf } from '../../kube/apiErrors';
import type { PodLog } from './watchedAttempts';

/**
 * How many of a log's last lines are asked for. `limitBytes` keeps a log's first bytes (v1.32), and
 * the end is where the error is: the last lines are read, then held to the last 1 MiB
 * (boundedOutput), so that neither a long log nor its transfer grows without bound.
 */
export const LOG_TAIL_LINES = 20_000;

/**
 * How long a log read may take: the API server does not time pods/log out, and a kubelet that
 * never answers must not hold a worker. A read that times out is tried again, as one that failed.
 */
export const LOG_READ_TIMEOUT_MS = 30_000;

export type ReadPodLog = (namespace: string, pod: string, container: string) => Promise<string | null>;

/**
 * The logs of a watched CronJob's pods, read once each as soon as the pod's main container has
 * ended: before the Job's history limit, its `ttlSecondsAfterFinished` or the garbage collector
 * takes the pod, and with it the log. What cannot be read is said plainly (gone, refused, never on
 * a node), never guessed. Kept until the run is recorded (`forget`).
 */
export class PodLogs {
  private readonly read = new Map<string, PodLog>();
  /** Pods whose read failed in a way that may pass (the kubelet away): the last error. */
  private readonly failed = new Map<string, string>();

  constructor(private readonly readLog: ReadPodLog) {}

  /** Reads the pod's log once its main container has ended (and not before); true when it has. */
  async readIfEnded(pod: V1Pod): Promise<boolean> {
    const uid = pod.metadata?.uid ?? '';
    if (this.read.has(uid)) return true;
    if (!ended(pod)) return false;
    const container = pod.spec?.containers[0]?.name ?? '';
    try {
      const text = await this.readLog(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', container);
      this.read.set(
        uid,
        text === null ? { missing: 'the pod never ran on a node' } : { text: boundedOutput(text) },
      );
      this.failed.delete(uid);
    } catch (error) {
      const missing = missingBecause(error);
      if (missing === null) {
        this.failed.set(uid, apiMessage(error));
        return false;
      }
      this.read.set(uid, { missing });
    }
    return true;
  }

  /** The pod went before its log was read: said so, unless it was read. */
  podGone(uid: string): void {
    if (!this.read.has(uid)) {
      this.read.set(uid, {
        missing: 'the log is no longer available: the pod was deleted before it was read',
      });
    }
  }

  /** What is known of each pod's log, for the run's record; a read still failing says why. */
  logsOf(pods: readonly V1Pod[]): Map<string, PodLog> {
    const logs = new Map<string, PodLog>();
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? '';
      const known = this.read.get(uid);
      if (known) logs.set(uid, known);
      else if (this.failed.has(uid))
        logs.set(uid, { missing: `the log could not be read: ${this.failed.get(uid)}` });
    }
    return logs;
  }

  forget(podUids: Iterable<string>): void {
    for (const uid of podUids) {
      this.read.delete(uid);
      this.failed.delete(uid);
    }
  }
}

/** Whether the main container (or the whole pod) has ended: its log is complete. */
function ended(pod: V1Pod): boolean {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return true;
  const main = pod.spec?.containers[0]?.name;
  return pod.status?.containerStatuses?.some((c) => c.name === main && c.state?.terminated) === true;
}

/** A refusal that will not pass, as a note for the run; null for one worth trying again. */
function missingBecause(error: unknown): string | null {
  const status = statusOf(error);
  if (status === 404) return `the log is no longer available (404: ${apiMessage(error)})`;
  if (status === 403)
    return `the controller may not read pods/log in this namespace (403: ${apiMessage(error)})`;
  if (status === 400) return `the API server would not give the log (400: ${apiMessage(error)})`;
  return null;
}
