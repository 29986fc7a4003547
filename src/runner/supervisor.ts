import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { abortableSleep } from './attemptLoop';
import { runVariables } from './jobEnvironment';
import { shellQuote } from './shellQuote';
import { type PodRunIo, reportUnstartedRun, runInPod, type RunnerSettings } from './podRunner';
import { runSupervisedAttempt } from './supervisedAttempt';
import { SUPERVISE_FILES } from './superviseFiles';

export interface SuperviseOptions {
  /** The directory shared with the job container. */
  dir: string;
  /**
   * How long to wait for the job container to start. Its image is pulled after this sidecar has
   * started, so this covers the pull. A job container that cannot start (its image, its
   * configuration) keeps the pod alive, this sidecar with it (the kubelet stops sidecars once the
   * main containers have ended): the controller ends such a run's Job after the same ten minutes
   * (controller/runs/startDeadline.ts), which deletes the pod.
   */
  readyTimeoutMs?: number;
  pollMs?: number;
}

const DEFAULT_READY_TIMEOUT_MS = 10 * 60_000;

/**
 * `crondeck run --supervise`: the runner as a native sidecar when the job's command runs in an
 * image of the user's (spec.image). The attempts, their timeout, retries and reports are those of
 * `crondeck run`; only where each attempt runs differs: in the job container, through the shared
 * files. At the end `done` tells the job container the exit code to end the pod with.
 *
 * Then the runner stays up until the kubelet stops it: a sidecar that exited would be restarted
 * (restartPolicy Always). A restarted runner finds `done` and only waits, or finds the attempts
 * that ran and carries on from them; a report it sends again is stored once (same pod and attempt).
 */
export async function supervise(
  settings: RunnerSettings,
  options: SuperviseOptions,
  io: PodRunIo,
): Promise<void> {
  const done = join(options.dir, SUPERVISE_FILES.done);
  if (!existsSync(done)) {
    const code = await runOnce(settings, options, io, options.pollMs ?? 200);
    writeFileSync(`${done}.tmp`, `${code}\n`);
    renameSync(`${done}.tmp`, done);
  }
  while (!io.signal.aborted) await abortableSleep(60_000, io.signal);
}

async function runOnce(
  settings: RunnerSettings,
  options: SuperviseOptions,
  io: PodRunIo,
  pollMs: number,
): Promise<number> {
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const readyFile = join(options.dir, SUPERVISE_FILES.ready);
  const jobContainerPid = await waitForReady(readyFile, readyTimeoutMs, pollMs, io.signal);
  if (jobContainerPid === null) {
    return reportUnstartedRun(
      settings,
      io,
      io.signal.aborted
        ? 'stopped before the job container started (does its image have /bin/sh?)'
        : `the job container did not start within ${Math.round(readyTimeoutMs / 1000)} s`,
    );
  }
  return runInPod(settings, {
    ...io,
    execute: (job, attempt, signal) =>
      runSupervisedAttempt({
        dir: options.dir,
        attempt,
        // The job container's environment is the image's and the job's: add what names the run.
        command: `${exportsOf(
          runVariables({ jobId: job.id, jobName: job.name, attempt, scheduledAt: job.scheduledAt }),
        )}\n${job.command}`,
        timeoutSeconds: settings.timeoutSeconds,
        signal,
        jobContainerPid,
        pollMs,
      }),
  });
}

function exportsOf(variables: Record<string, string>): string {
  return `export ${Object.entries(variables)
    .map(([name, value]) => `${name}=${shellQuote(value)}`)
    .join(' ')}`;
}

/** The job container's pid, once its script has written `ready`; null if it never does. */
async function waitForReady(
  readyFile: string,
  timeoutMs: number,
  pollMs: number,
  signal: AbortSignal,
): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pid = Number(readIfExists(readyFile)?.trim());
    if (Number.isInteger(pid) && pid > 0) return pid;
    if (signal.aborted || Date.now() >= deadline) return null;
    await abortableSleep(pollMs, signal);
  }
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
