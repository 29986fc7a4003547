/**
 * Only the jobs (and their runs) of some Kubernetes namespaces: those a caller may list
 * (SERVICE_AUTH=kubernetes), or the one a list asks for (`?namespace=`). A job whose ScheduledJob
 * is not written yet (a config file's, before the controller mirrors it) counts as in `home`, the
 * namespace the service writes it to; outside Kubernetes mode (`home` null) a job is in none.
 * A watched CronJob's job (issue 40) shows where the caller may list CronJobs (`watchedNamespaces`),
 * as `kubectl get cronjobs` would: its spec is the CronJob's.
 */
export interface NamespaceFilter {
  /** The namespaces whose jobs show; null: every one. */
  namespaces: readonly string[] | null;
  home: string | null;
  /** The namespaces whose watched CronJobs' jobs show; null: every one. */
  watchedNamespaces: readonly string[] | null;
}

/**
 * The SQL condition that a row of `jobs` (as `alias`, or unqualified when empty) passes `filter`,
 * its parameters appended to `values`. The text is the same for every filter (a null list is a
 * null parameter), so a statement prepared with it serves them all.
 */
export function namespaceCondition(alias: string, filter: NamespaceFilter, values: unknown[]): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  const list = (namespaces: readonly string[] | null) => (namespaces === null ? null : [...namespaces]);
  values.push(filter.home, list(filter.namespaces), list(filter.watchedNamespaces));
  const [home, jobs, watched] = [values.length - 2, values.length - 1, values.length];
  return `(CASE WHEN ${column('cron_job_name')} IS NULL
    THEN ($${jobs}::text[] IS NULL OR coalesce(${column('resource_namespace')}, $${home}::text) = ANY($${jobs}::text[]))
    ELSE ($${watched}::text[] IS NULL OR ${column('resource_namespace')} = ANY($${watched}::text[])) END)`;
}

/** Whether a job (its namespace, or none; whether it mirrors a watched CronJob) passes `filter`. */
export function passesNamespaceFilter(
  filter: NamespaceFilter,
  job: { namespace: string | null; watched: boolean },
): boolean {
  const shown = job.watched ? filter.watchedNamespaces : filter.namespaces;
  return (
    shown === null ||
    shown.includes(job.watched ? (job.namespace ?? '') : (job.namespace ?? filter.home ?? ''))
  );
}
