import { z } from 'zod';
import { type AttemptReportBody, RUN_TRIGGERS } from '../domain/attemptReport';
import { RUNNER_ENV } from './runnerEnvironment';
import { MAX_RETRY_ATTEMPTS } from '../domain/job';
import type { RunSlot } from '../domain/slots';
import type { Logger } from '../logging/logger';
import { type RunnableJob, runAttempts } from './attemptLoop';
import { jobEnvironment } from './jobEnvironment';
import { sendWithOptionalFields } from './optionalReportFields';
import { ReportClient, ReportRefusedError } from './reportClient';
import { type CommandResult, runCommand } from './runCommand';
import { slotOfRun } from './runSlot';
import { claimSlot } from './slotClaim';

const whole = (what: string) =>
  z.coerce.number({ error: `must be ${what}` }).int({ error: `must be ${what}` });

/** The runner's instructions, from the pod's environment (the CronJob sets them: podSpec.ts). */
const settingsSchema = z.object({
  [RUNNER_ENV.reportUrl]: z.url({ error: 'must be the service URL, e.g. http://crondeck.crondeck.svc:7433' }),
  [RUNNER_ENV.jobId]: whole('a job id').min(1, { error: 'must be a job id' }),
  [RUNNER_ENV.jobName]: z.string().default(''),
  [RUNNER_ENV.command]: z.string({ error: 'is required' }).min(1, { error: 'must not be empty' }),
  [RUNNER_ENV.timeout]: whole('a number of seconds').min(0).default(0),
  [RUNNER_ENV.retryMaxAttempts]: whole('a number of retries').min(0).max(MAX_RETRY_ATTEMPTS).default(0),
  [RUNNER_ENV.retryBaseDelay]: z.coerce.number({ error: 'must be a number of seconds' }).min(0).default(0),
  [RUNNER_ENV.reportToken]: z.string({ error: 'is required (from the job’s Secret)' }).min(1),
  [RUNNER_ENV.podUid]: z.string({ error: 'is required (downward API metadata.uid)' }).min(1),
  [RUNNER_ENV.runUid]: z.string().min(1).optional(),
  [RUNNER_ENV.kubeJobName]: z.string().optional(),
  [RUNNER_ENV.cronJobName]: z.string().optional(),
  [RUNNER_ENV.scheduledTime]: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 timestamp (the slot)' })
    .optional(),
  [RUNNER_ENV.trigger]: z
    .enum(RUN_TRIGGERS, { error: `must be one of ${RUN_TRIGGERS.join(', ')}` })
    .optional(),
});

export interface RunnerSettings {
  reportUrl: string;
  jobId: number;
  jobName: string;
  command: string;
  timeoutSeconds: number;
  retry: { maxAttempts: number; baseDelay: number };
  reportToken: string;
  podUid: string;
  runUid: string | undefined;
  /** The slot the run is for (runSlot.ts); null for a run started by hand. */
  slot: RunSlot | null;
}

/** Reads the runner's settings, or throws one message naming every bad variable. */
export function readRunnerSettings(env: NodeJS.ProcessEnv): RunnerSettings {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = settingsSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`crondeck run: invalid environment: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  return {
    reportUrl: e[RUNNER_ENV.reportUrl],
    jobId: e[RUNNER_ENV.jobId],
    jobName: e[RUNNER_ENV.jobName],
    command: e[RUNNER_ENV.command],
    timeoutSeconds: e[RUNNER_ENV.timeout],
    retry: { maxAttempts: e[RUNNER_ENV.retryMaxAttempts], baseDelay: e[RUNNER_ENV.retryBaseDelay] },
    reportToken: e[RUNNER_ENV.reportToken],
    podUid: e[RUNNER_ENV.podUid],
    runUid: e[RUNNER_ENV.runUid],
    slot: slotOfRun({
      kubeJobName: e[RUNNER_ENV.kubeJobName],
      cronJobName: e[RUNNER_ENV.cronJobName],
      scheduledTime: e[RUNNER_ENV.scheduledTime],
      trigger: e[RUNNER_ENV.trigger],
    }),
  };
}

export interface PodRunIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Aborts when the pod is told to stop (SIGTERM: deletion, the Job's deadline). */
  signal: AbortSignal;
  /** The environment the command sees (the pod's own, minus the runner's instructions). */
  env: NodeJS.ProcessEnv;
  reportBudgetMs?: number;
  /** How long the claim on the run's slot is tried while the service cannot answer. */
  claimBudgetMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  logger: Logger;
  /**
   * Runs one attempt. By default the command runs here, in this container; the sidecar layout
   * (`--supervise`) runs it in the job container instead.
   */
  execute?: (job: RunnableJob, attempt: number, signal: AbortSignal) => Promise<CommandResult>;
}

/**
 * `crondeck run` in a pod: claims the run's slot, then runs the job's command with its timeout and
 * retries (the same attempt loop as the local runtime) and reports every attempt to the service,
 * retrying a report while the service is away. The output also goes to the pod's log. Resolves to
 * the exit code of the pod: the final attempt's (0 when the run succeeded), so the Job's outcome is
 * the run's. A run whose slot another run has claimed runs nothing, reports nothing, and ends 0.
 */
export async function runInPod(settings: RunnerSettings, io: PodRunIo): Promise<number> {
  const claimed = await claimRunSlot(settings, io);
  if (claimed === 'refused') return 0;
  const client = reportClientFor(settings, io);
  let last: CommandResult | null = null;
  await runAttempts(
    {
      id: settings.jobId,
      name: settings.jobName,
      command: settings.command,
      timeout: settings.timeoutSeconds,
      retry: settings.retry,
      scheduledAt: claimed?.scheduledAt ?? null,
    },
    io.signal,
    {
      logger: io.logger,
      sleep: io.sleep,
      // Over HTTP an attempt is reported once it is over: its "id" is its number.
      recorder: {
        startAttempt: async (attempt) => attempt,
        finishAttempt: async (attempt, result, final) => {
          io.out(result.stdout);
          io.err(result.stderr);
          io.err(
            `[crondeck] attempt ${attempt}: ${result.status} (exit ${result.exitCode})${final ? '' : '; retrying'}\n`,
          );
          await report(client, settings, attempt, result as CommandResult, final, io, claimed);
          if (final) last = result as CommandResult;
        },
      },
      execute: (job, attempt, signal, onSpawn) =>
        io.execute
          ? io.execute(job, attempt, signal)
          : runCommand({
              command: job.command,
              timeoutSeconds: job.timeout,
              env: jobEnvironment(
                io.env,
                {
                  jobId: job.id,
                  jobName: job.name,
                  attempt,
                  scheduledAt: job.scheduledAt,
                },
                'pod',
              ),
              signal,
              onSpawn,
            }),
    },
  );
  const final = last as CommandResult | null;
  return final ? podExitCode(final) : 143;
}

const DEFAULT_CLAIM_BUDGET_MS = 2 * 60_000;

/**
 * Claims the run's slot before its command starts, so that a second Job for one slot (the CronJob
 * controller firing a DST-repeated time again, a catch-up racing a late fire) runs nothing. Answers
 * the slot to run as, null for a run without a slot, or `refused`. A backfill run claims nothing:
 * it runs its slot again on purpose, beside whatever ran for it. A slot that cannot be claimed
 * (the service away past the budget, or too old to know claims) still runs: a run is not lost
 * because the service was away, and its report names the slot.
 */
async function claimRunSlot(settings: RunnerSettings, io: PodRunIo): Promise<RunSlot | null | 'refused'> {
  const { slot } = settings;
  if (!slot || slot.trigger === 'backfill') return slot;
  const outcome = await claimSlot(
    {
      reportUrl: settings.reportUrl,
      jobId: settings.jobId,
      scheduledAt: slot.scheduledAt,
      runKey: settings.runUid ?? settings.podUid,
    },
    {
      token: settings.reportToken,
      budgetMs: io.claimBudgetMs ?? DEFAULT_CLAIM_BUDGET_MS,
      onRetry: (reason, delayMs) =>
        io.err(`[crondeck] slot claim not answered (${reason}); again in ${delayMs} ms\n`),
    },
  );
  const at = slot.scheduledAt.toISOString();
  switch (outcome.kind) {
    case 'refused':
      io.err(
        `[crondeck] not running the command: ${outcome.why}. Another run has this slot (${at}), ` +
          'so this one ends without running it (a second Job for one slot, such as the DST double fire).\n',
      );
      return 'refused';
    case 'unclaimed':
      io.err(`[crondeck] could not claim slot ${at} (${outcome.why}); running without a claim\n`);
      return slot;
    case 'claimed':
      if (outcome.duplicate) {
        io.err(
          `[crondeck] slot ${at} already has a run; this one runs too (the job allows duplicate slots)\n`,
        );
      }
      return { ...slot, scheduledAt: outcome.slot };
  }
}

/** The pod's exit code for a run's final attempt: 0 when it succeeded, never 0 when it did not. */
function podExitCode(final: CommandResult): number {
  if (final.status === 'success') return 0;
  return final.exitCode > 0 && final.exitCode <= 255 ? final.exitCode : 1;
}

/**
 * Reports a run that never got to run its command (the job container of the sidecar layout did not
 * start) as one failed, final attempt of its slot, once it has claimed it. Resolves to the pod's
 * exit code.
 */
export async function reportUnstartedRun(
  settings: RunnerSettings,
  io: PodRunIo,
  why: string,
): Promise<number> {
  const now = new Date();
  const result: CommandResult = {
    status: 'failed',
    exitCode: -1,
    stdout: '',
    stderr: `[crondeck] ${why}\n`,
    startedAt: now,
    finishedAt: now,
    // The controller, which sees the job container's state (ImagePullBackOff...), says more.
    reason: { code: 'JobContainerNotStarted', message: why },
  };
  // A run another run had the slot of would not have run its command either: nothing to report.
  const claimed = await claimRunSlot(settings, io);
  if (claimed === 'refused') return 0;
  io.err(result.stderr);
  await report(reportClientFor(settings, io), settings, 0, result, true, io, claimed);
  return podExitCode(result);
}

function reportClientFor(settings: RunnerSettings, io: PodRunIo): ReportClient {
  return new ReportClient({
    reportUrl: settings.reportUrl,
    jobId: settings.jobId,
    token: settings.reportToken,
    budgetMs: io.reportBudgetMs,
    onRetry: (reason, delayMs) =>
      io.err(`[crondeck] report not delivered (${reason}); again in ${delayMs} ms\n`),
  });
}

async function report(
  client: ReportClient,
  settings: RunnerSettings,
  attempt: number,
  result: CommandResult,
  final: boolean,
  io: PodRunIo,
  slot: RunSlot | null,
): Promise<void> {
  const body: AttemptReportBody = {
    podUid: settings.podUid,
    ...(settings.runUid ? { runUid: settings.runUid } : {}),
    attempt,
    final,
    status: result.status,
    exitCode: Math.max(-1, Math.min(255, result.exitCode)),
    startedAt: result.startedAt.toISOString(),
    finishedAt: result.finishedAt.toISOString(),
    stdout: result.stdout,
    stderr: result.stderr,
  };
  try {
    await sendWithOptionalFields(client, body, {
      ...(slot ? { scheduledAt: slot.scheduledAt.toISOString(), trigger: slot.trigger } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
    });
  } catch (error) {
    // The run goes on: the controller records a run whose report never came from the Job's end.
    const why = error instanceof ReportRefusedError ? error.message : (error as Error).message;
    io.err(`[crondeck] could not report attempt ${attempt}: ${why}\n`);
  }
}
