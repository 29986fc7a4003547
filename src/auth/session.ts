import { type Request, Router } from 'express';
import type { Pool } from 'pg';
import type { Caller } from '../domain/caller';
import { listJobNamespaces } from '../store/jobs';
import { type JobResourceKind, namespaceAttributes, nonResourceAttributes } from './accessRules';
import { callerOf } from './requestCaller';
import type { Reviewer } from './reviewer';

/** How `/api` is guarded: the cluster's RBAC, a shared token, or nothing (a loopback service). */
type AuthMode = 'kubernetes' | 'token' | 'open';

/** What a caller may do with the jobs of one namespace. */
interface NamespaceAbilities {
  list: boolean;
  get: boolean;
  create: boolean;
  update: boolean;
  delete: boolean;
  run: boolean;
  getAlerts: boolean;
  updateAlerts: boolean;
  /** A watched CronJob's job is checked on the CronJob, as `kubectl` would be (accessRules.ts). */
  getCronJobs: boolean;
  patchCronJobs: boolean;
  createJobs: boolean;
  getCronJobWatches: boolean;
  updateCronJobWatches: boolean;
}

/** `GET /api/session`, the dashboard's view of who it is and what it may do. */
interface Session {
  auth: AuthMode;
  user: { username: string; groups: string[] } | null;
  namespaces: { name: string; can: NamespaceAbilities }[];
  pauseResume: boolean;
}

export interface SessionDeps {
  mode: AuthMode;
  pool: Pool;
  /** Kubernetes mode: the service's own namespace; null in local mode, where jobs have none. */
  home: string | null;
  /** SERVICE_AUTH=kubernetes: the cluster's reviews. */
  reviewer: Reviewer | null;
}

/** Each ability, as the review of one verb (or of either of two) on a resource of the namespace. */
const ABILITIES: Record<keyof NamespaceAbilities, { resource: JobResourceKind; verbs: string[] }> = {
  list: { resource: 'scheduledjobs', verbs: ['list'] },
  get: { resource: 'scheduledjobs', verbs: ['get'] },
  create: { resource: 'scheduledjobs', verbs: ['create'] },
  update: { resource: 'scheduledjobs', verbs: ['update', 'patch'] },
  delete: { resource: 'scheduledjobs', verbs: ['delete'] },
  run: { resource: 'scheduledjobs/run', verbs: ['create'] },
  getAlerts: { resource: 'alertconfigs', verbs: ['get'] },
  updateAlerts: { resource: 'alertconfigs', verbs: ['update'] },
  getCronJobs: { resource: 'cronjobs', verbs: ['get'] },
  patchCronJobs: { resource: 'cronjobs', verbs: ['patch'] },
  createJobs: { resource: 'jobs', verbs: ['create'] },
  getCronJobWatches: { resource: 'cronjobwatches', verbs: ['get'] },
  updateCronJobWatches: { resource: 'cronjobwatches', verbs: ['update'] },
};

const EVERYTHING: NamespaceAbilities = {
  list: true,
  get: true,
  create: true,
  update: true,
  delete: true,
  run: true,
  getAlerts: true,
  updateAlerts: true,
  getCronJobs: true,
  patchCronJobs: true,
  createJobs: true,
  getCronJobWatches: true,
  updateCronJobWatches: true,
};

/**
 * `GET /api/session`: how the API is guarded, who the caller is (SERVICE_AUTH=kubernetes: as the
 * TokenReview said, as a SelfSubjectReview would) and what they may do in each namespace that has
 * jobs and in the service's own (the same reviews the requests are checked with, cached alike),
 * and whether they may pause and resume the scheduler. With a shared token, or none, the caller is
 * no one in particular and may do everything. Outside Kubernetes mode jobs have no namespace: the
 * list is empty.
 */
export function sessionRouter(deps: SessionDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await sessionOf(req, deps));
  });
  return router;
}

async function sessionOf(req: Request, deps: SessionDeps): Promise<Session> {
  const names =
    deps.home === null
      ? []
      : [...new Set([deps.home, ...(await listJobNamespaces(deps.pool, deps.home))])].sort();
  const caller = callerOf(req);
  const reviewer = deps.reviewer;
  if (!caller || !reviewer) {
    return {
      auth: deps.mode,
      user: null,
      namespaces: names.map((name) => ({ name, can: { ...EVERYTHING } })),
      pauseResume: true,
    };
  }
  const may = (attributes: Parameters<Reviewer['allowed']>[1]) => reviewer.allowed(caller, attributes);
  // The same questions as the requests themselves: their paths, under the same prefix.
  const [namespaces, pause, resume] = await Promise.all([
    Promise.all(names.map(async (name) => ({ name, can: await abilitiesIn(caller, reviewer, name) }))),
    may(nonResourceAttributes('POST', '/api/scheduler/pause')),
    may(nonResourceAttributes('POST', '/api/scheduler/resume')),
  ]);
  return {
    auth: 'kubernetes',
    user: { username: caller.username, groups: caller.groups },
    namespaces,
    pauseResume: pause && resume,
  };
}

async function abilitiesIn(
  caller: Caller,
  reviewer: Reviewer,
  namespace: string,
): Promise<NamespaceAbilities> {
  const entries = await Promise.all(
    Object.entries(ABILITIES).map(async ([ability, { resource, verbs }]) => {
      const decisions = await Promise.all(
        verbs.map((verb) => reviewer.allowed(caller, namespaceAttributes(resource, verb, namespace))),
      );
      return [ability, decisions.some(Boolean)] as const;
    }),
  );
  return Object.fromEntries(entries) as unknown as NamespaceAbilities;
}
