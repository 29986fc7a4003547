import type { AccessAttributes } from '../kube/accessReviews';
import { CRONDECK_GROUP } from '../kube/resources/group';

/** The resources a request about one job is checked on (in the job's namespace). */
export type JobResourceKind = 'scheduledjobs' | 'scheduledjobs/run' | 'alertconfigs';

/** What a request about one job needs: one of `verbs` on `resource` (update or patch, for a change). */
export interface JobNeed {
  resource: JobResourceKind;
  verbs: readonly string[];
}

/** Where a job is, as RBAC names it: its ScheduledJob's namespace and name. */
export interface JobTarget {
  namespace: string;
  name: string;
}

const GET: JobNeed = { resource: 'scheduledjobs', verbs: ['get'] };
const CHANGE: JobNeed = { resource: 'scheduledjobs', verbs: ['update', 'patch'] };
const RUN: JobNeed = { resource: 'scheduledjobs/run', verbs: ['create'] };
const READ_ALERTS: JobNeed = { resource: 'alertconfigs', verbs: ['get'] };
const CHANGE_ALERTS: JobNeed = { resource: 'alertconfigs', verbs: ['update'] };

/**
 * The requests about one job (`/api/jobs/:id...`) and what each needs, in the `crondeck.dev` API
 * group, in the job's namespace (docs/api.md, "Access in a cluster"). Express matches them as it
 * matches the routes themselves (http/kubernetesAuth's guards are mounted from this table), so a
 * path the route takes is the path checked. A request not in this table nor a list is checked as
 * a non-resource URL.
 */
export const JOB_REQUESTS: readonly {
  method: 'get' | 'put' | 'patch' | 'post' | 'delete';
  path: string;
  need: JobNeed;
}[] = [
  { method: 'get', path: '/jobs/:id', need: GET },
  { method: 'put', path: '/jobs/:id', need: CHANGE },
  { method: 'delete', path: '/jobs/:id', need: { resource: 'scheduledjobs', verbs: ['delete'] } },
  { method: 'patch', path: '/jobs/:id/toggle', need: CHANGE },
  { method: 'post', path: '/jobs/:id/run', need: RUN },
  { method: 'post', path: '/jobs/:id/backfill', need: RUN },
  { method: 'get', path: '/jobs/:id/slots', need: GET },
  { method: 'get', path: '/jobs/:id/alerts', need: READ_ALERTS },
  { method: 'get', path: '/jobs/:id/alerts/history', need: READ_ALERTS },
  { method: 'put', path: '/jobs/:id/alerts', need: CHANGE_ALERTS },
  { method: 'delete', path: '/jobs/:id/alerts', need: CHANGE_ALERTS },
];

/** What reading one job (its executions, its output) needs. */
export const READ_JOB: JobNeed = GET;

/**
 * The SubjectAccessReview attributes of `verb` on a job resource. An AlertConfig is named by no
 * job (a job's alerts may come from several): it is checked in the namespace, without a name.
 */
export function jobAttributes(resource: JobResourceKind, verb: string, target: JobTarget): AccessAttributes {
  const [plural, subresource] = resource.split('/') as [string, string | undefined];
  return {
    kind: 'resource',
    verb,
    group: CRONDECK_GROUP,
    resource: plural,
    ...(subresource ? { subresource } : {}),
    namespace: target.namespace,
    ...(resource === 'alertconfigs' ? {} : { name: target.name }),
  };
}

/** `verb` on ScheduledJobs of `namespace`, or of every namespace when it is null (lists, creations). */
export function scheduledJobsAttributes(verb: string, namespace: string | null): AccessAttributes {
  return {
    kind: 'resource',
    verb,
    group: CRONDECK_GROUP,
    resource: 'scheduledjobs',
    ...(namespace === null ? {} : { namespace }),
  };
}

/** `verb` on a resource of the group in `namespace` (the session's questions). */
export function namespaceAttributes(
  resource: JobResourceKind,
  verb: string,
  namespace: string,
): AccessAttributes {
  const [plural, subresource] = resource.split('/') as [string, string | undefined];
  return {
    kind: 'resource',
    verb,
    group: CRONDECK_GROUP,
    resource: plural,
    ...(subresource ? { subresource } : {}),
    namespace,
  };
}

/**
 * The verb of a non-resource request, derived from its HTTP method as the API server derives it:
 * the method in lower case (GET: get, HEAD: head, POST: post...). Only resource requests map HEAD
 * to get (requestinfo.go), so a rule must name `head` to allow it, as on the API server's own paths.
 */
export function nonResourceVerb(method: string): string {
  return method.toLowerCase();
}

/**
 * What a request's path is checked as among the cluster's non-resource URLs: the path under
 * `/crondeck`. The plain path would be asked about the API server's own URLs: Kubernetes' built-in
 * `system:discovery` ClusterRole, bound to every authenticated user, grants `get` on `/api/*` (its
 * discovery), and would so let anyone the cluster knows read the scheduler's status and the whole
 * mailbox. No built-in role grants anything under `/crondeck`: only what an admin grants there.
 */
const NON_RESOURCE_PREFIX = '/crondeck';

/**
 * A request about no one namespace (the scheduler, the mailbox, /api/cron...): its URL path (e.g.
 * `/api/scheduler/pause`), checked as `/crondeck/api/scheduler/pause`.
 */
export function nonResourceAttributes(
  method: string,
  path: string,
): Extract<AccessAttributes, { kind: 'nonResource' }> {
  return { kind: 'nonResource', verb: nonResourceVerb(method), path: NON_RESOURCE_PREFIX + path };
}
