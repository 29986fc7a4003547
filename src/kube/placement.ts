import { crNameForJobName } from './resources/names';

/** The ScheduledJob of a job: where the REST API writes it. */
export interface JobResource {
  namespace: string;
  name: string;
}

/**
 * Where a job created through the REST API in `namespace` goes, and the API name it then has: the
 * name the controller gives the ScheduledJob it mirrors (controller/scheduledJobs/jobInput.ts), the
 * name itself in the service's own namespace (`home`), `namespace.name` in any other, so that jobs
 * of different namespaces never collide. The resource is named after the name in its namespace.
 */
export function placeJob(
  name: string,
  namespace: string,
  home: string,
): { name: string; resource: JobResource } {
  return {
    name: namespace === home ? name : `${namespace}.${name}`,
    resource: { namespace, name: crNameForJobName(name) },
  };
}

/** A job's name in its namespace: its API name without the `namespace.` of `placeJob`. */
export function nameInNamespace(apiName: string, namespace: string, home: string): string {
  const qualifier = `${namespace}.`;
  return namespace !== home && apiName.startsWith(qualifier) ? apiName.slice(qualifier.length) : apiName;
}
