import type { V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import type { AttemptResult, FailureReason } from '../../domain/execution';
import type { FinishedJob } from '../runs/jobOutcome';
import { toDate } from '../runs/jobOutcome';
import { diagnosePod } from '../runs/podDiagnosis';

/** What became of a pod's log (podLogs.ts): its text, or why there is none. */
export type PodLog = { text: string } | { missing: string };

/** A Warning event of the Job or one of its pods, kept with the run. */
export interface RunWarning {
  object: string;
  reason: string;
  message: string;
  count: number;
}

/** One attempt of a watched CronJob's run, ready for the recorder. */
export type WatchedAttempt = AttemptResult & { attempt: number; final: boolean };

/**
 * The attempts of a finished Job of a watched CronJob, as Kubernetes shows them: one per pod the
 * Job controller made (each retry under `backoffLimit` is a pod of its own), oldest first. Each has
 * its pod's main container's exit code and times (its terminated state), why it failed as its pod
 * says (OOMKilled, Evicted, an image that cannot be pulled, Unschedulable: podDiagnosis.ts), and its
 * log as output. The last one ends as the Job did (its status, and the Job's condition as reason
 * when the pod says nothing: BackoffLimitExceeded, DeadlineExceeded), and carries the Warning
 * events. A Job without a pod (refused by a quota) is one attempt, from the Job alone.
 */
export function watchedAttempts(
  finished: FinishedJob,
  pods: readonly V1Pod[],
  logs: ReadonlyMap<string, PodLog>,
  warnings: readonly RunWarning[],
  warningsNote: string | null,
): WatchedAttempt[] {
  const ordered = [...pods].sort((a, b) => created(a) - created(b));
  const attempts: WatchedAttempt[] = ordered.map((pod, index) => {
    const final = index === ordered.length - 1;
    const terminated = mainContainerEnd(pod);
    const seen = diagnosePod(pod);
    const reason: FailureReason | null = final
      ? finished.status === 'success'
        ? null
        : (seen ?? finished.reason)
      : (seen ?? null);
    const log = logs.get(pod.metadata?.uid ?? '') ?? { missing: 'the log was not read before the pod went' };
    return {
      attempt: index,
      final,
      status: final ? finished.status : 'failed',
      // The run starts with its Job (the slot ledger judges a run late from it), each retry with its pod.
      startedAt:
        index === 0
          ? finished.startedAt
          : (toDate(terminated?.startedAt) ?? toDate(pod.status?.startTime) ?? finished.startedAt),
      finishedAt:
        toDate(terminated?.finishedAt) ??
        (final ? finished.finishedAt : (toDate(pod.status?.startTime) ?? finished.finishedAt)),
      exitCode: terminated?.exitCode ?? -1,
      stdout: 'text' in log ? log.text : '',
      stderr: 'missing' in log ? `[crondeck] no output: ${log.missing}\n` : '',
      reason,
    };
  });
  if (attempts.length === 0) {
    attempts.push({
      attempt: 0,
      final: true,
      status: finished.status,
      startedAt: finished.startedAt,
      finishedAt: finished.finishedAt,
      exitCode: -1,
      stdout: '',
      stderr: '[crondeck] the Job made no pod\n',
      reason: finished.status === 'success' ? null : finished.reason,
    });
  }
  const last = attempts.at(-1)!;
  last.stderr += warningLines(warnings, warningsNote);
  return attempts;
}

function warningLines(warnings: readonly RunWarning[], note: string | null): string {
  const lines = warnings.map(
    (warning) =>
      `[kubernetes] Warning ${warning.reason} (${warning.object}${warning.count > 1 ? `, ${warning.count} times` : ''}): ${warning.message}\n`,
  );
  if (note) lines.push(`[crondeck] ${note}\n`);
  return lines.join('');
}

/** The main (first) container's terminated state: its exit code and times. */
function mainContainerEnd(pod: V1Pod): V1ContainerStateTerminated | undefined {
  const main = pod.spec?.containers[0]?.name;
  const status = pod.status?.containerStatuses?.find((container) => container.name === main);
  return status?.state?.terminated ?? status?.lastState?.terminated;
}

function created(pod: V1Pod): number {
  return toDate(pod.metadata?.creationTimestamp)?.getTime() ?? 0;
}
