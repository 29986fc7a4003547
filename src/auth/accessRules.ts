import type { AccessAttributes } from '../kube/accessReviews';
import { CRONDECK_GROUP } from '../kube/resources/group';

/**
 * The resources a request about one job is checked on (in the job's namespace): a ScheduledJob's
 * in the `crondeck.dev` group; a watched CronJob's (issue 40) on the CronJob and its Jobs, in
 * `batch`, as `kubectl` would be checked for the same, and on the CronJobWatch its alerts come from.
 */
export type JobResourceKind =
  'scheduledjobs' | 'scheduledjobs/run' | 'alertconfigs' | 'cronjobs' | 'jobs' | 'cronjobwatches';

const GROUP_OF: Record<JobResourceKind, string> = {
  scheduledjobs: CRONDECK_GROUP,
  'scheduledjobs/run': CRONDECK_GROUP,
  alertconfigs: CRONDECK_GROUP,
  cronjobs: 'batch',
  jobs: 'batch',
  cronjobwatches: CRONDECK_GROUP,
};

/**
 * Checked in the namespace, without a name: an AlertConfig or CronJobWatch is named by no job (a
 * job's alerts may come from several), and a run's Job is named when it is made.
 */
const NAMELESS: ReadonlySet<JobResourceKind> = new Set(['alertconfigs', 'jobs', 'cronjobwatches']);

/** What a request about one job needs: one of `verbs` on `resource` (update or patch, for a change). */
export interface JobNeed {
  resource: JobResourceKind;
  verbs: readonly string[];
}

/**
 * Where a job is, as RBAC names it: its ScheduledJob's namespace and name, or, for a watched
 * CronJob's job (`watched`), the CronJob's.
 */
export interface JobTarget {
  namespace: string;
  name: string;
  watched: boolean;
}

const GET: JobNeed = { resource: 'scheduledjobs', verbs: ['get'] };
const CHANGE: JobNeed = { resource: 'scheduledjobs', verbs: ['update', 'patch'] };
const RUN: JobNeed = { resource: 'scheduledjobs/run', verbs: ['create'] };
const READ_ALERTS: JobNeed = { resource: 'alertconfigs', verbs: ['get'] };
const CHANGE_ALERTS: JobNeed = { resource: 'alertconfigs', verbs: ['update'] };

const GET_CRONJOB: JobNeed = { resource: 'cronjobs', verbs: ['get'] };
/** The toggle patches the CronJob's `spec.suspend`, as `kubectl patch` does. */
const PATCH_CRONJOB: JobNeed = { resource: 'cronjobs', verbs: ['patch'] };
/** Run now and backfill make Jobs from the CronJob's template, as `kubectl create job --from` does. */
const CREATE_JOBS: JobNeed = { resource: 'jobs', verbs: ['create'] };
const READ_WATCHES: JobNeed = { resource: 'cronjobwatches', verbs: ['get'] };
const CHANGE_WATCHES: JobNeed = { resource: 'cronjobwatches', verbs: ['update'] };

/**
 * The requests about one job (`/api/jobs/:id...`) and what each needs in the job's namespace
 * (docs/api.md, "Access in a cluster"): `need` for a ScheduledJob's job, `watched` for a watched
 * CronJob's. A watched job's spec is its CronJob owner's to change: PUT and DELETE answer 409 naming
 * that owner to whoever may see the job. Express matches them as it matches the routes themselves
 * (http/kubernetesAuth's guards are mounted from this table), so a path the route takes is the path
 * checked. A request not in this table nor a list is checked as a non-resource URL.
 */
export const JOB_REQUESTS: readonly {
  method: 'get' | 'put' | 'patch' | 'post' | 'delete';
  path: string;
  need: JobNeed;
  watched: JobNeed;
}[] = [
  { method: 'get', path: '/jobs/:id', need: GET, watched: GET_CRONJOB },
  { method: 'put', path: '/jobs/:id', need: CHANGE, watched: GET_CRONJOB },
  {
    method: 'delete',
    path: '/jobs/:id',
    need: { resource: 'scheduledjobs', verbs: ['delete'] },
    watched: GET_CRONJOB,
  },
  { method: 'patch', path: '/jobs/:id/toggle', need: CHANGE, watched: PATCH_CRONJOB },
  { method: 'post', path: '/jobs/:id/run', need: RUN, watched: CREATE_JOBS },
  { method: 'post', path: '/jobs/:id/backfill', need: RUN, watched: CREATE_JOBS },
  { method: 'get', path: '/jobs/:id/slots', need: GET, watched: GET_CRONJOB },
  { method: 'get', path: '/jobs/:id/alerts', need: READ_ALERTS, watched: READ_WATCHES },
  { method: 'get', path: '/jobs/:id/alerts/history', need: READ_ALERTS, watched: READ_WATCHES },
  { method: 'put', path: '/jobs/:id/alerts', need: CHANGE_ALERTS, watched: CHANGE_WATCHES },
  { method: 'delete', path: '/jobs/:id/alerts', need: CHANGE_ALERTS, watched: CHANGE_WATCHES },
];

/** What reading a ScheduledJob's job needs (and asking about a job that is not there). */
export const READ_JOB: JobNeed = GET;

/** What reading one job (its executions, its output) needs. */
export function readNeedOf(target: JobTarget): JobNeed {
  return target.watched ? GET_CRONJOB : GET;
}

/** The API group of a job resource. */
export function groupOf(resource: JobResourceKind): string {
  return GROUP_OF[resource];
}

/** The SubjectAccessReview attributes of `verb` on a job's resource (NAMELESS ones without a name). */
export function jobAttributes(resource: JobResourceKind, verb: string, target: JobTarget): AccessAttributes {
  return {
    ...namespaceAttributes(resource, verb, target.namespace),
    ...(NAMELESS.has(resource) ? {} : { name: target.name }),
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

/** `verb` on CronJobs of `namespace`, or of every one when null: a list's watched CronJobs' jobs. */
export function cronJobsAttributes(verb: string, namespace: string | null): AccessAttributes {
  return {
    kind: 'resource',
    verb,
    group: groupOf('cronjobs'),
    resource: 'cronjobs',
    ...(namespace === null ? {} : { namespace }),
  };
}

/** `verb` on a job resource in `namespace` (the session's questions). */
export function namespaceAttributes(
  resource: JobResourceKind,
  verb: string,
  namespace: string,
): AccessAttributes {
  const [plural, subresource] = resource.split('/') as [string, string | undefined];
  return {
    kind: 'resource',
    verb,
    group: groupOf(resource),
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
