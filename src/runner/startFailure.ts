import type { FailureReason } from '../domain/execution';
import type { CommandResult } from './runCommand';

/** The exit code of a command that never started, as a shell reports a command it cannot run. */
export const NOT_STARTED_EXIT_CODE = 127;

/** The reason code of an attempt whose command could not be started, as Kubernetes names it. */
export const START_ERROR = 'StartError';

/**
 * What the usual refusals of exec or of the pipes' creation mean for a job: the error's own text
 * (`spawn /bin/sh E2BIG`) names the errno, not what to do about it.
 */
const MEANINGS: Record<string, string> = {
  E2BIG:
    'the command (or the environment) is longer than the kernel takes for one program (128 KiB an argument)',
  EMFILE:
    'the process had no file descriptor left for the pipes of the command: too many open connections or files',
  ENFILE: 'the machine had no file descriptor left for the pipes of the command',
  EAGAIN: 'the limit of processes of the user was reached',
  ENOMEM: 'the machine had no memory left to start a process',
  ENOENT: 'the shell or the working directory does not exist',
  EACCES: 'the shell or the working directory may not be used',
};

/**
 * The reason of an attempt whose command could not be started (`spawn` threw, or its child emitted
 * 'error'): `StartError`.
 */
export function startFailureReason(error: unknown): FailureReason {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const meaning = code ? MEANINGS[code] : undefined;
  return {
    code: START_ERROR,
    message: `the command could not be started: ${messageOf(error)}${meaning ? ` (${meaning})` : ''}`,
  };
}

/** The line a not-started attempt's stderr ends with. */
export function startFailureNote(error: unknown): string {
  return `[crondeck] could not start the command: ${messageOf(error)}\n`;
}

function messageOf(error: unknown): string {
  // Read as a shape, not with instanceof: an Error of another realm (a VM context) is one too.
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** The result of an attempt whose command could not be started. */
export function notStartedResult(error: unknown, startedAt: Date): CommandResult {
  return {
    status: 'failed',
    exitCode: NOT_STARTED_EXIT_CODE,
    stdout: '',
    stderr: startFailureNote(error),
    startedAt,
    finishedAt: new Date(),
    reason: startFailureReason(error),
  };
}
