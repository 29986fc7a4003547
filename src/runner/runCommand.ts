import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { FinalStatus } from '../domain/execution';
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
}

export interface CommandResult {
  status: Extract<FinalStatus, 'success' | 'failed' | 'timeout'>;
  exitCode: number;
  stdout: string;
  stderr: string;
  startedAt: Date;
  finishedAt: Date;
}

export const DEFAULT_OUTPUT_LIMIT_BYTES = 1024 * 1024;

/**
 * Runs `sh -c command` in a process group of its own, so a timeout (TERM, then KILL after a grace
 * period) reaches every process the command started, not just the shell. A process killed by a
 * signal reports 128 + the signal number, as shells and Kubernetes do.
 */
export function runCommand(options: CommandOptions): Promise<CommandResult> {
  const limit = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
  const graceMs = (options.killGraceSeconds ?? 5) * 1000;
  const stdout = new TailBuffer(limit);
  const stderr = new TailBuffer(limit);
  const startedAt = new Date();

  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', options.command], {
      detached: true,
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stopReason: 'timeout' | 'aborted' | null = null;
    let killTimer: NodeJS.Timeout | undefined;

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
      killTimer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
    };

    const timeoutTimer =
      options.timeoutSeconds > 0
        ? setTimeout(() => stop('timeout'), options.timeoutSeconds * 1000)
        : undefined;
    const onAbort = () => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

    let settled = false;
    const finish = (exitCode: number, extraStderr = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const errText = stderr.text() + extraStderr;
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
      });
    };

    child.on('error', (error) => finish(127, `[crondeck] could not start the command: ${error.message}\n`));
    child.on('exit', () => {
      // The shell is done; background processes it left behind would hold the pipes open and
      // outlive the run. A run owns its process group, so end it, as a pod's end would.
      signalGroup('SIGKILL');
    });
    child.on('close', (code, signal) => {
      finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
