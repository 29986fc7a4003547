/**
 * Only the jobs (and their runs) of some Kubernetes namespaces: those a caller may list
 * (SERVICE_AUTH=kubernetes), or the one a list asks for (`?namespace=`). A job whose ScheduledJob
 * is not written yet (a config file's, before the controller mirrors it) counts as in `home`, the
 * namespace the service writes it to; outside Kubernetes mode (`home` null) a job is in none.
 */
export interface NamespaceFilter {
  namespaces: readonly string[];
  home: string | null;
}

/**
 * The SQL condition that a job's `resource_namespace` column (as `column`) passes `filter`, its
 * parameters appended to `values`.
 */
export function namespaceCondition(column: string, filter: NamespaceFilter, values: unknown[]): string {
  values.push(filter.home, [...filter.namespaces]);
  return `coalesce(${column}, $${values.length - 1}::text) = ANY($${values.length}::text[])`;
}
