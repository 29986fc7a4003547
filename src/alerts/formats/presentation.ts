import type { AlertSnapshot } from '../alertSnapshot';

/** The wording the human-facing formats share, so a chat message and an e-mail say the same thing. */

/** How an alert reads at a glance: good news (green), bad news (red), or a warning (amber). */
export type Tone = 'good' | 'bad' | 'warning';

export function toneOf(snapshot: AlertSnapshot): Tone {
  switch (snapshot.event) {
    case 'success':
    case 'recovered':
      return 'good';
    case 'overrun':
    case 'tooFast':
    case 'late':
      return 'warning';
    default:
      return 'bad';
  }
}

function succeeded(snapshot: AlertSnapshot): boolean {
  return toneOf(snapshot) === 'good';
}

/**
 * "✓ backup succeeded", "✗ backup failed", "✗ backup timed out", and the alert policy's events:
 * "↻ backup recovered", "⏱ backup still running after 2 h 5 min", "⚡ backup finished suspiciously
 * fast", "⏸ backup suspended"; a reminder says "✗ backup still failing".
 */
export function headline(snapshot: AlertSnapshot): string {
  const name = snapshot.job.name;
  switch (snapshot.event) {
    case 'success':
      return `✓ ${name} succeeded`;
    case 'recovered':
      return `↻ ${name} recovered`;
    case 'overrun':
      return `⏱ ${name} still running after ${formatDuration(snapshot.run?.runningForMs ?? 0)}`;
    case 'tooFast':
      return `⚡ ${name} finished suspiciously fast`;
    case 'suspended':
      return `⏸ ${name} suspended`;
    case 'missed':
      return `✗ ${name} missed its run of ${snapshot.slot?.scheduledAt ?? 'a slot'}`;
    case 'late':
      return `⏱ ${name} started late for ${snapshot.slot?.scheduledAt ?? 'a slot'}`;
    case 'timeout':
      return snapshot.reminder ? `✗ ${name} still timing out` : `✗ ${name} timed out`;
    default:
      return snapshot.reminder ? `✗ ${name} still failing` : `✗ ${name} failed`;
  }
}

/** A duration people read at a glance: "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const totalSeconds = Math.floor(ms / 1000);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)} min ${totalSeconds % 60} s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  return `${Math.floor(totalMinutes / 60)} h ${totalMinutes % 60} min`;
}

/**
 * The output an alert shows: stderr when the run failed, stdout when it succeeded (a run that
 * finished suspiciously fast shows what it printed); null for an alert about a run in progress.
 */
export function shownOutput(snapshot: AlertSnapshot): { stream: 'stdout' | 'stderr'; text: string } | null {
  const { execution } = snapshot;
  if (!execution) return null;
  return succeeded(snapshot) || snapshot.event === 'tooFast'
    ? { stream: 'stdout', text: execution.stdoutTail }
    : { stream: 'stderr', text: execution.stderrTail };
}

/** Whether the chat formats show the output block: on failure (spec), and for a too-fast success. */
export function showsOutputBlock(snapshot: AlertSnapshot): boolean {
  return Boolean(snapshot.execution) && (!succeeded(snapshot) || snapshot.event === 'tooFast');
}

/** One labelled fact of an alert; `code` values are shown as code (a schedule). */
export interface Fact {
  label: string;
  value: string;
  code?: boolean;
}

/**
 * The facts about the run (spec: schedule, duration, exit code, attempt), or, for a run still in
 * progress, how long it has run against its limit.
 */
export function runFacts(snapshot: AlertSnapshot): Fact[] {
  const schedule: Fact = { label: 'Schedule', value: snapshot.job.schedule, code: true };
  const { execution, run } = snapshot;
  if (execution) {
    return [
      schedule,
      { label: 'Duration', value: formatDuration(execution.durationMs) },
      { label: 'Exit code', value: String(execution.exitCode) },
      { label: 'Attempt', value: String(execution.attempt) },
    ];
  }
  if (!run) return [schedule];
  return [
    schedule,
    { label: 'Running for', value: formatDuration(run.runningForMs) },
    { label: 'Limit', value: formatDuration(run.maxDurationSeconds * 1000) },
    ...(run.attempt !== undefined ? [{ label: 'Attempt', value: String(run.attempt) }] : []),
  ];
}

/** What the alert policy adds (docs/alert-policy.md); nothing for an alert without a policy. */
export function policyFacts(snapshot: AlertSnapshot): Fact[] {
  const facts: Fact[] = [];
  const failures = snapshot.consecutiveFailures;
  switch (snapshot.event) {
    case 'recovered':
      if (failures !== undefined) facts.push({ label: 'Failed runs before', value: String(failures) });
      if (snapshot.failingSince) facts.push({ label: 'Failing since', value: snapshot.failingSince });
      break;
    case 'tooFast':
      if (snapshot.minDurationSeconds !== undefined) {
        facts.push({ label: 'Expected at least', value: formatDuration(snapshot.minDurationSeconds * 1000) });
      }
      break;
    case 'suspended':
      if (snapshot.suspendedReason) facts.push({ label: 'Suspended', value: snapshot.suspendedReason });
      break;
    case 'overrun':
      if (snapshot.run) facts.push({ label: 'Running since', value: snapshot.run.startedAt });
      break;
    case 'missed':
    case 'late':
      facts.push(...slotFacts(snapshot));
      break;
    default:
      if (failures !== undefined && failures > 1)
        facts.push({ label: 'Failed runs in a row', value: String(failures) });
      if (snapshot.reminder) facts.push({ label: 'Reminder', value: 'the job is still failing' });
  }
  return facts;
}

/** The facts of a `missed` or `late` alert's slot (docs/slots.md). */
function slotFacts(snapshot: AlertSnapshot): Fact[] {
  const { slot } = snapshot;
  if (!slot) return [];
  const facts: Fact[] = [{ label: 'Slot', value: slot.scheduledAt }];
  if (slot.startedAt) facts.push({ label: 'Started', value: slot.startedAt });
  if (slot.delayMs !== undefined) facts.push({ label: 'Late by', value: formatDuration(slot.delayMs) });
  if (slot.reason) facts.push({ label: 'Reason', value: slot.reason });
  return facts;
}

const ELLIPSIS = '…';

/**
 * Escapes `text` character by character and cuts it so the result is at most `max` UTF-16 units
 * (the strictest way to count a platform's "characters"), marking a cut with an ellipsis. Cutting
 * after escaping would risk splitting an escape sequence; cutting before would not know the
 * escaped length. `keep: 'tail'` keeps the end (output, where the error is), `'head'` the start.
 */
export function escapeWithin(
  text: string,
  max: number,
  escape: (character: string) => string,
  keep: 'head' | 'tail' = 'head',
): string {
  const characters = Array.from(text);
  const escaped = characters.map(escape);
  const total = escaped.reduce((sum, piece) => sum + piece.length, 0);
  if (total <= max) return escaped.join('');
  const budget = max - ELLIPSIS.length;
  const kept: string[] = [];
  let used = 0;
  for (let i = 0; i < escaped.length; i++) {
    const piece = escaped[keep === 'head' ? i : escaped.length - 1 - i]!;
    if (used + piece.length > budget) break;
    kept.push(piece);
    used += piece.length;
  }
  return keep === 'head' ? kept.join('') + ELLIPSIS : ELLIPSIS + kept.reverse().join('');
}

/**
 * A zero-width space after every backtick: output shown inside a code block can then never form
 * the three backticks that would close it.
 */
export function separateBackticks(character: string): string {
  return character === '`' ? '`\u200b' : character;
}

/**
 * One line of what to try, per reason code: what the person reading the alert would do next.
 * Kubernetes' reasons come from the controller (podDiagnosis.ts), the others from the runner.
 */
const HINTS: Record<string, string> = {
  OOMKilled: 'raise resources.limits.memory of the ScheduledJob, or make the command use less memory',
  Evicted:
    'the node ran short of memory or disk: set resources.requests so the pod is placed on a node with room',
  ImagePullBackOff: 'check the image name and pull secret',
  ErrImagePull: 'check the image name and pull secret',
  InvalidImageName: 'fix the image name (registry/name:tag)',
  ErrImageNeverPull: 'imagePullPolicy is Never: load the image on the nodes, or change the policy',
  CreateContainerConfigError:
    'check that the Secrets and ConfigMaps the env refers to exist and have those keys',
  Unschedulable:
    'no node can take the pod: lower resources.requests, add capacity, or check selectors and taints',
  NodeLost: 'the node running the pod went away: run the job again, and check the node if it repeats',
  Preempted: 'a pod of higher priority took its place: run the job again, or make room in the cluster',
  NodeShutdown: 'the node shut down during the run: run the job again',
  CreateContainerError: 'see kubectl describe pod of the run for what the container runtime refused',
  RunContainerError: 'see kubectl describe pod of the run for what the container runtime refused',
  DeadlineExceeded: 'the run outlived its timeout and retries: raise timeout, or find what makes it slow',
  BackoffLimitExceeded:
    'the pod failed without reporting: read kubectl logs and kubectl describe pod of the run',
  JobContainerLost: 'the job container ended before the command did: see kubectl describe pod of the run',
  JobContainerNotStarted: 'check the job image (it needs /bin/sh) and kubectl describe pod of the run',
  Timeout: 'raise the job’s timeout, or find what makes the command slow',
  Stopped: 'run the job again if it still should run',
  ServiceStopped: 'see the service’s log for why it stopped, then run the job again',
  SIGKILL:
    'something killed the command; outside Kubernetes an out-of-memory kill cannot be told apart: look for the OOM killer in the system log (dmesg)',
  SIGTERM:
    'something asked the command to stop (a person, a shutdown): run the job again if it still should run',
  SIGSEGV: 'the command crashed (segmentation fault): see its output and any core dump',
  SIGABRT: 'the command aborted itself: see the end of its stderr',
};

/** What to try for a reason code, or null when there is no advice to give. */
function hintFor(code: string | null | undefined): string | null {
  return code ? (HINTS[code] ?? null) : null;
}

/**
 * "OOMKilled: container "run" reached its memory limit of 64Mi...", or null without a reason (or
 * without an execution: an overrun is about a run still going).
 */
export function reasonLine(snapshot: AlertSnapshot): string | null {
  const { reason, reasonMessage } = snapshot.execution ?? {};
  if (!reason) return null;
  return reasonMessage ? `${reason}: ${reasonMessage}` : reason;
}

/** The line of what to try, for the execution's reason; null without one. */
export function hintLine(snapshot: AlertSnapshot): string | null {
  return hintFor(snapshot.execution?.reason);
}
