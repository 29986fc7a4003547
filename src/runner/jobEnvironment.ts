/** What names a run in its command's environment. */
export interface RunNaming {
  jobId: number;
  jobName: string;
  attempt: number;
  /** The slot the run is for (scheduled, caught up or backfilled); null or absent for a run by hand. */
  scheduledAt?: Date | null;
}

/**
 * The environment a job's command sees: the service's own, minus its secrets (API token, database
 * URL, SMTP password and the rest of `SERVICE_*`), plus a few variables naming the run.
 */
export function jobEnvironment(base: NodeJS.ProcessEnv, run: RunNaming): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (key.startsWith('SERVICE_') || key === 'DATABASE_URL' || key.startsWith('CRONDECK_')) continue;
    env[key] = value;
  }
  return { ...env, ...runVariables(run) };
}

/**
 * The variables naming the run that a job's command sees, wherever it runs. A run for a slot also
 * sees the slot's time (`CRONDECK_SCHEDULED_TIME`, ISO 8601 UTC), so that a command processes
 * "its" period whether it runs on time, caught up or backfilled; a run by hand has none.
 */
export function runVariables(run: RunNaming): Record<string, string> {
  return {
    CRONDECK_JOB_ID: String(run.jobId),
    CRONDECK_JOB_NAME: run.jobName,
    CRONDECK_ATTEMPT: String(run.attempt),
    ...(run.scheduledAt ? { CRONDECK_SCHEDULED_TIME: run.scheduledAt.toISOString() } : {}),
  };
}
