/** What names a run in its command's environment. */
export interface RunNaming {
  jobId: number;
  jobName: string;
  attempt: number;
  /** The slot the run is for (scheduled, caught up or backfilled); null or absent for a run by hand. */
  scheduledAt?: Date | null;
}

/**
 * Whose process hands the command its environment, which says which variables are that process's
 * own and not the command's:
 *
 * - `service`: `crondeck serve` running jobs on its own machine. Its environment holds its secrets
 *   (the API token, the database URL and libpq's PG* variables, the SMTP password and the rest of
 *   `SERVICE_*`), which no job was given.
 * - `pod`: `crondeck run` in a job's pod. The controller instructs it through `CRONDECK_*` only,
 *   which a ScheduledJob's `env` cannot name; everything else was put there by the job's author (a
 *   `DATABASE_URL` from a Secret for a backup, say) or by the image, and reaches the command.
 */
export type CommandHost = 'service' | 'pod';

/**
 * The variables libpq reads for a connection's defaults (PostgreSQL's "Environment Variables" of
 * libpq, up to version 18), which `pg` reads too. In the service's environment they are its own
 * database's settings, PGPASSWORD its password: a job that needs a database names its own.
 */
export const LIBPQ_VARIABLES: readonly string[] = [
  'PGHOST',
  'PGHOSTADDR',
  'PGPORT',
  'PGDATABASE',
  'PGUSER',
  'PGPASSWORD',
  'PGPASSFILE',
  'PGREQUIREAUTH',
  'PGCHANNELBINDING',
  'PGSERVICE',
  'PGSERVICEFILE',
  'PGOPTIONS',
  'PGAPPNAME',
  'PGSSLMODE',
  'PGREQUIRESSL',
  'PGSSLNEGOTIATION',
  'PGSSLCOMPRESSION',
  'PGSSLCERT',
  'PGSSLKEY',
  'PGSSLCERTMODE',
  'PGSSLROOTCERT',
  'PGSSLCRL',
  'PGSSLCRLDIR',
  'PGSSLSNI',
  'PGREQUIREPEER',
  'PGSSLMINPROTOCOLVERSION',
  'PGSSLMAXPROTOCOLVERSION',
  'PGMINPROTOCOLVERSION',
  'PGMAXPROTOCOLVERSION',
  'PGGSSENCMODE',
  'PGKRBSRVNAME',
  'PGGSSLIB',
  'PGGSSDELEGATION',
  'PGOAUTHDEBUG',
  'PGCONNECT_TIMEOUT',
  'PGCLIENTENCODING',
  'PGTARGETSESSIONATTRS',
  'PGLOADBALANCEHOSTS',
  'PGDATESTYLE',
  'PGTZ',
  'PGGEQO',
  'PGSYSCONFDIR',
  'PGLOCALEDIR',
];
const libpqVariables = new Set(LIBPQ_VARIABLES);

const ownedByHost: Record<CommandHost, (name: string) => boolean> = {
  service: (name) =>
    name.startsWith('SERVICE_') ||
    name === 'DATABASE_URL' ||
    libpqVariables.has(name) ||
    name.startsWith('CRONDECK_'),
  pod: (name) => name.startsWith('CRONDECK_'),
};

/**
 * The environment a job's command sees: the host process's own minus what belongs to the host
 * (`CommandHost`), plus a few variables naming the run.
 */
export function jobEnvironment(
  base: NodeJS.ProcessEnv,
  run: RunNaming,
  host: CommandHost,
): NodeJS.ProcessEnv {
  const isHostsOwn = ownedByHost[host];
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (!isHostsOwn(name)) env[name] = value;
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
