import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { FailureReason, FinalStatus } from '../domain/execution';
import { killedBySignal, RUN_STOPPED, timedOut } from '../domain/failureReasons';
import { type ProcessGroup, readProcessGroup } from './processGroup';
import { OUTPUT_LIMIT_BYTES } from '../domain/outputTail';
import {
  NOT_STARTED_EXIT_CODE,
  notStartedResult,
  startFailureNote,
  startFailureReason,
} from './startFailure';
import { TailBuffer } from './tailBuffer';

export interface CommandOptions {
  command: string;
  /** Seconds; 0 means no limit. */
  timeoutSeconds: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Bytes kept of each of stdout and stderr (the tail). */
  outputLimitBytes?: number;
  /** Seconds between TERM and KILL when the command must stop. */
  killGraceSeconds?: number;
  /** Aborting stops the command like a timeout would, but it counts as a failure. */
  signal?: AbortSignal;
  /**
   * Called once the command has spawned, with its process group (null where /proc cannot say),
   * so that a later start of the service can end what a crash left running.
   */
  onSpawn?: (group: ProcessGroup | null) => void;
  /**
   * Milliseconds the run keeps reading output after the shell exited. A process that left the
   * group (`setsid`) may hold the pipes open for as long as it likes; the run does not wait for it.
   */
  drainMs?: number;
}

export interface CommandResult {
  status: Extract<FinalStatus, 'success' | 'failed' | 'timeout'>;
  exitCode: number;
  stdout: string;
  stderr: string;
  startedAt: Date;
  finishedAt: Date;
  /** Why it ended so (a timeout, a stop, a signal); null (or absent) for a plain exit. */
  reason?: FailureReason | null;
}

export const DEFAULT_OUTPUT_LIMIT_BYTES = OUTPUT_LIMIT_BYTES;
const DEFAULT_DRAIN_MS = 1000;

/**
 * Runs `sh -c command` in a process group of its own, so a timeout (TERM, then KILL after a grace
 * period) reaches every process the command started, not just the shell. A process killed by a
 * signal reports 128 + the signal number, as shells and Kubernetes do.
 */
export function runCommand(options: CommandOptions): Promise<CommandResult> {
  const limit = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
  const graceMs = (options.killGraceSeconds ?? 5) * 1000;
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  const stdout = new TailBuffer(limit);
  const stderr = new TailBuffer(limit);
  const startedAt = new Date();

  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', options.command], {
        detached: true,
        env: options.env ?? process.env,
        cwd: options.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      // Some refusals of exec are thrown rather than emitted (E2BIG: an argument longer than
      // MAX_ARG_STRLEN): the attempt ends as failed, like those emitted below.
      resolve(notStartedResult(error, startedAt));
      return;
    }
    // Before anything else: an unhandled 'error' (EMFILE, where there was no descriptor left for
    // the pipes) would end the whole process.
    let startError: unknown = null;
    child.on('error', (error) => {
      startError = error;
      finish(NOT_STARTED_EXIT_CODE, startFailureNote(error));
    });
    let stopReason: 'timeout' | 'aborted' | null = null;
    let killSent = false;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    if (child.pid) options.onSpawn?.(readProcessGroup(child.pid));

    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const stop = (reason: 'timeout' | 'aborted'): void => {
      if (stopReason) return;
      stopReason = reason;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => {
        killSent = true;
        signalGroup('SIGKILL');
      }, graceMs);
    };

    const timeoutTimer =
      options.timeoutSeconds > 0
        ? setTimeout(() => stop('timeout'), options.timeoutSeconds * 1000)
        : undefined;
    const onAbort = () => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    // Absent when the pipes could not be made (EMFILE): 'error' follows.
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

    let settled = false;
    /** A stop of ours says why; otherwise the signal the command died of, if it did (signalOfExit). */
    const reasonFor = (exitCode: number): FailureReason | null => {
      if (startError) return startFailureReason(startError);
      if (stopReason === 'timeout') {
        return timedOut(options.timeoutSeconds, killSent ? { graceSeconds: graceMs / 1000 } : null);
      }
      if (stopReason === 'aborted') return RUN_STOPPED;
      const signal = signalOfExit(exitCode);
      return signal ? killedBySignal(signal, exitCode) : null;
    };
    const finish = (exitCode: number, extraStderr = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const captured = stderr.text();
      const errText =
        captured && extraStderr && !captured.endsWith('\n')
          ? `${captured}\n${extraStderr}`
          : captured + extraStderr;
      resolve({
        status: stopReason === 'timeout' ? 'timeout' : exitCode === 0 && !stopReason ? 'success' : 'failed',
        exitCode,
        stdout: stdout.text(),
        stderr:
          stopReason === 'timeout'
            ? `${errText}${errText && !errText.endsWith('\n') ? '\n' : ''}[crondeck] timed out after ${options.timeoutSeconds}s\n`
            : errText,
        startedAt,
        finishedAt: new Date(),
        reason: reasonFor(exitCode),
      });
    };

    const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null): number =>
      code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
    child.on('exit', (code, signal) => {
      // The shell is done; background processes it left behind would hold the pipes open and
      // outlive the run. A run owns its process group, so end it, as a pod's end would.
      signalGroup('SIGKILL');
      // The outcome is decided: a timeout coming during the drain must not turn it into one.
      clearTimeout(timeoutTimer);
      // A process that left the group (setsid) can keep the pipes open indefinitely: read what
      // is already on its way for a moment, then end the run with the shell's exit code.
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(
          exitCodeOf(code, signal),
          "[crondeck] output no longer read: a process that left the run's process group still holds it\n",
        );
      }, drainMs);
    });
    child.on('close', (code, signal) => finish(exitCodeOf(code, signal)));
  });
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * The signal that an exit code of 128 + n stands for, as shells and Kubernetes report a process
 * killed by signal n (the shell of `sh -c` forks its commands, so a command killed by the kernel's
 * OOM killer or by a person shows as the shell's exit code 137, not as a signal of the shell).
 */
export function signalOfExit(exitCode: number): string | null {
  return exitCode > 128 ? (SIGNAL_NAMES.get(exitCode - 128) ?? null) : null;
}
