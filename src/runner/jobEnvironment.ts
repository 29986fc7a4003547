/**
 * The environment a job's command sees: the service's own, minus its secrets (API token, database
 * URL, SMTP password and the rest of `SERVICE_*`), plus a few variables naming the run.
 */
export function jobEnvironment(
  base: NodeJS.ProcessEnv,
  run: { jobId: number; jobName: string; attempt: number },
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (key.startsWith('SERVICE_') || key === 'DATABASE_URL' || key.startsWith('CRONDECK_')) continue;
    env[key] = value;
  }
  return { ...env, ...runVariables(run) };
}

/** The variables naming the run that a job's command sees, wherever it runs. */
export function runVariables(run: {
  jobId: number;
  jobName: string;
  attempt: number;
}): Record<string, string> {
  return {
    CRONDECK_JOB_ID: String(run.jobId),
    CRONDECK_JOB_NAME: run.jobName,
    CRONDECK_ATTEMPT: String(run.attempt),
  };
}
