import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { abortableSleep } from './attemptLoop';
import { isAlive, signalAttempt } from './processTree';
import { type CommandResult, DEFAULT_OUTPUT_LIMIT_BYTES, signalOfExit } from './runCommand';
import type { FailureReason } from '../domain/execution';
import { killedBySignal, RUN_STOPPED, timedOut } from '../domain/failureReasons';
import { SUPERVISE_FILES } from './superviseFiles';
import { tailText } from '../domain/outputTail';

export interface SupervisedAttemptOptions {
  /** The shared directory (SUPERVISE_DIR in a pod). */
  dir: string;
  attempt: number;
  command: string;
  /** Seconds; 0 means no limit. */
  timeoutSeconds: number;
  /** Aborting stops the attempt like a timeout would, but it counts as a failure. */
  signal: AbortSignal;
  /** The job container's script (the pid in `ready`): once it is gone, no attempt can finish. */
  jobContainerPid: number;
  killGraceSeconds?: number;
  outputLimitBytes?: number;
  pollMs?: number;
}

/** After KILL, how long the job container has to write the exit status before the runner gives up. */
const AFTER_KILL_MS = 3000;
/** Once the attempt is being stopped, the polls go on at their pace whatever the run's signal says. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Runs one attempt in the job container through the shared files (superviseFiles.ts) and waits for
 * its end, enforcing the timeout as `runCommand` does locally: TERM, then KILL after the grace,
 * 128 + the signal as the exit code. An attempt that a restarted runner finds started or finished
 * is waited for or read, never run twice.
 */
export async function runSupervisedAttempt(options: SupervisedAttemptOptions): Promise<CommandResult> {
  const { dir, attempt } = options;
  const file = (name: string) => join(dir, name);
  const exitFile = file(SUPERVISE_FILES.exit(attempt));
  const startFile = file(SUPERVISE_FILES.start(attempt));
  const pollMs = options.pollMs ?? 200;
  const graceMs = (options.killGraceSeconds ?? 5) * 1000;

  let startedAt: Date;
  if (existsSync(startFile)) {
    startedAt = statSync(startFile).mtime;
  } else {
    const commandFile = file(SUPERVISE_FILES.command(attempt));
    writeFileSync(`${commandFile}.tmp`, options.command);
    renameSync(`${commandFile}.tmp`, commandFile);
    writeFileSync(startFile, '');
    startedAt = new Date();
  }

  let stopReason: 'timeout' | 'aborted' | null = null;
  let termSentAt: number | null = null;
  let killSentAt: number | null = null;
  const deadline =
    options.timeoutSeconds > 0 ? startedAt.getTime() + options.timeoutSeconds * 1000 : Infinity;
  const attemptPid = () => Number(readIfExists(file(SUPERVISE_FILES.pid(attempt)))?.trim()) || null;

  while (!existsSync(exitFile)) {
    const now = Date.now();
    if (!stopReason && now >= deadline) stopReason = 'timeout';
    if (!stopReason && options.signal.aborted) stopReason = 'aborted';
    if (stopReason) {
      // The pid file may lag the start by one poll of the job container: signal once it is there.
      const pid = attemptPid();
      if (pid !== null && termSentAt === null) {
        signalAttempt(pid, 'SIGTERM');
        termSentAt = now;
      } else if (pid !== null && killSentAt === null && now - termSentAt! >= graceMs) {
        signalAttempt(pid, 'SIGKILL');
        killSentAt = now;
      } else if (killSentAt !== null && now - killSentAt >= AFTER_KILL_MS) {
        return lost(options, startedAt, stopReason, 'did not write its exit status after KILL');
      }
    }
    if (!isAlive(options.jobContainerPid) && !existsSync(exitFile)) {
      return lost(options, startedAt, stopReason, 'ended before the attempt did');
    }
    await abortableSleep(pollMs, stopReason ? NEVER_ABORTED : options.signal);
  }

  const exitCode = Number(readFileSync(exitFile, 'utf8').trim());
  const signal = signalOfExit(exitCode);
  const reason: FailureReason | null =
    stopReason === 'timeout'
      ? timedOut(options.timeoutSeconds, killSentAt !== null ? { graceSeconds: graceMs / 1000 } : null)
      : stopReason === 'aborted'
        ? RUN_STOPPED
        : signal
          ? killedBySignal(signal, exitCode)
          : null;
  const limit = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
  const stdout = readTail(file(SUPERVISE_FILES.stdout(attempt)), limit);
  let stderr = readTail(file(SUPERVISE_FILES.stderr(attempt)), limit);
  if (stopReason === 'timeout') {
    stderr += `${stderr && !stderr.endsWith('\n') ? '\n' : ''}[crondeck] timed out after ${options.timeoutSeconds}s\n`;
  }
  return {
    status: stopReason === 'timeout' ? 'timeout' : exitCode === 0 && !stopReason ? 'success' : 'failed',
    exitCode: Number.isInteger(exitCode) ? exitCode : -1,
    stdout,
    stderr,
    startedAt,
    finishedAt: statSync(exitFile).mtime,
    reason,
  };
}

/** The job container went away (OOM-killed, evicted) with the attempt unfinished. */
function lost(
  options: SupervisedAttemptOptions,
  startedAt: Date,
  stopReason: 'timeout' | 'aborted' | null,
  what: string,
): CommandResult {
  return {
    status: stopReason === 'timeout' ? 'timeout' : 'failed',
    exitCode: -1,
    stdout: '',
    stderr: `[crondeck] the job container ${what}: attempt ${options.attempt} has no exit status\n`,
    startedAt,
    finishedAt: new Date(),
    // The controller, which sees the pod, says why where it can (OOMKilled, Evicted).
    reason:
      stopReason === 'timeout'
        ? timedOut(options.timeoutSeconds, { graceSeconds: options.killGraceSeconds ?? 5 })
        : { code: 'JobContainerLost', message: `the job container ${what}` },
  };
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The last `limit` bytes of a file, without reading the rest (a command may print gigabytes). */
function readTail(path: string, limit: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = statSync(path).size;
    const length = Math.min(size, limit);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    return tailText(tail, size - length);
  } finally {
    closeSync(fd);
  }
}
