import { type Request, type RequestHandler, Router } from 'express';
import type { Pool } from 'pg';
import { z } from 'zod';
import type { Caller } from '../domain/caller';
import { namespaceSchema } from '../domain/job';
import { HttpError } from '../httpKit/httpError';
import { singleQueryValue } from '../httpKit/queryParams';
import { parseOrThrow, parsePathId, pathIdSchema } from '../httpKit/validate';
import type { AccessAttributes } from '../kube/accessReviews';
import { crNameForJobName } from '../kube/resources/names';
import type { Logger } from '../logging/logger';
import { findJobOfExecution } from '../store/executions';
import { listJobNamespaces } from '../store/jobs';
import { findJobResource } from '../store/resourceJobs';
import {
  cronJobsAttributes,
  JOB_REQUESTS,
  type JobNeed,
  type JobTarget,
  groupOf,
  jobAttributes,
  nonResourceAttributes,
  READ_JOB,
  readNeedOf,
  scheduledJobsAttributes,
} from './accessRules';
import { readBearerToken } from './bearerToken';
import { forbiddenMessage, unseenMessage } from './forbiddenMessages';
import { callerOf, type ListScope, markChecked, setCaller, wasChecked } from './requestCaller';
import type { Reviewer } from './reviewer';

export interface KubernetesAuthDeps {
  reviewer: Reviewer;
  pool: Pool;
  /** The namespace the service writes ScheduledJobs to: that of a job not written to one yet. */
  home: string;
  logger: Logger;
}

const listQuerySchema = z.object({ namespace: singleQueryValue(namespaceSchema.optional()) });
const executionListQuerySchema = listQuerySchema.extend({ jobId: singleQueryValue(pathIdSchema.optional()) });
const createBodySchema = z.object({ namespace: namespaceSchema.nullish() });

/**
 * SERVICE_AUTH=kubernetes: every `/api` request (but pods' reports and slot claims, which come
 * before) carries a bearer token of the cluster, and is checked by the cluster's RBAC before any
 * route sees it (docs/api.md, "Access in a cluster"):
 *
 * - who: a TokenReview of the token (401 without one it accepts);
 * - lists (`GET /api/jobs`, `/api/executions`, `/api/stats`): `list scheduledjobs`, everywhere or
 *   in the namespaces shown, and `list cronjobs` for watched CronJobs' jobs; the route shows only
 *   those (`listableNamespaces`);
 * - a creation: `create scheduledjobs` in its namespace;
 * - a request about one job (JOB_REQUESTS) or execution: its verb on the job's ScheduledJob (a
 *   watched CronJob's job: on the CronJob, its Jobs or its CronJobWatches, in `batch` for the first two);
 * - anything else: the request's path under `/crondeck`, as a non-resource URL (accessRules.ts).
 *
 * A review the API server could not answer in time rejects with ApiServerUnavailableError, which
 * the app answers 503 (`apiServerUnavailableHandler`): never a pass.
 */
export function kubernetesAuth(deps: KubernetesAuthDeps): Router {
  const router = Router();
  const checks = new AccessChecks(deps);
  router.use(authenticate(deps.reviewer));
  // Who the caller is and what they may do in each namespace: authentication is all it needs.
  router.get('/session', (req, _res, next) => {
    markChecked(req);
    next();
  });
  router.get(['/jobs', '/stats'], async (req, _res, next) => {
    const { namespace } = parseOrThrow(listQuerySchema, req.query);
    markChecked(req, await checks.listable(caller(req), namespace ?? null));
    next();
  });
  router.get('/executions', async (req, _res, next) => {
    const { jobId, namespace } = parseOrThrow(executionListQuerySchema, req.query);
    // One job's runs are that job's: reading it is what they need.
    if (jobId !== undefined) await checks.job(caller(req), jobId, 'read');
    markChecked(req, jobId === undefined ? await checks.listable(caller(req), namespace ?? null) : null);
    next();
  });
  router.get('/executions/:id', async (req, _res, next) => {
    await checks.execution(caller(req), parsePathId(req.params));
    markChecked(req);
    next();
  });
  router.post('/jobs', async (req, _res, next) => {
    const body: unknown = req.body;
    const named = typeof body === 'object' && body !== null && Object.hasOwn(body, 'namespace');
    // A body that is not a job is the route's to refuse; only its namespace matters here.
    const namespace = named ? parseOrThrow(createBodySchema, body).namespace : null;
    await checks.require(caller(req), scheduledJobsAttributes('create', namespace ?? deps.home));
    markChecked(req);
    next();
  });
  for (const request of JOB_REQUESTS) {
    router[request.method](request.path, async (req, _res, next) => {
      await checks.job(caller(req), parsePathId(req.params), request);
      markChecked(req);
      next();
    });
  }
  // Every request no check above took: the scheduler, the mailbox, /api/cron, what matches no route.
  router.use(async (req, _res, next) => {
    if (!wasChecked(req)) {
      const path = (req.originalUrl.split('?')[0] ?? '').split('#')[0]!;
      await checks.require(caller(req), nonResourceAttributes(req.method, path));
      markChecked(req);
    }
    next();
  });
  return router;
}

/** 401 unless the request's bearer token is one the cluster accepts; else its caller is known. */
function authenticate(reviewer: Reviewer): RequestHandler {
  return async (req, res, next) => {
    const bearer = readBearerToken(req.headers.authorization);
    const caller = 'token' in bearer ? await reviewer.authenticate(bearer.token) : bearer;
    if ('refusal' in caller) {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="crondeck"').json({ error: caller.refusal });
      return;
    }
    setCaller(req, caller);
    next();
  };
}

function caller(req: Request): Caller {
  const known = callerOf(req);
  if (!known) throw new Error('a request was checked before its caller was known');
  return known;
}

/** The checks, as the cluster's reviews answer them (Reviewer: cached, within a timeout). */
class AccessChecks {
  constructor(private readonly deps: KubernetesAuthDeps) {}

  /** 403, as the API server phrases it, unless the caller may. */
  async require(caller: Caller, attributes: AccessAttributes): Promise<void> {
    if (!(await this.deps.reviewer.allowed(caller, attributes))) {
      throw new HttpError(403, forbiddenMessage(caller.username, attributes));
    }
  }

  /**
   * What a list shows: the jobs of every namespace when the caller may list ScheduledJobs in all,
   * else of `asked` or, without it, of those (among the namespaces that hold jobs and the service's
   * own) where they may; 403 when that is none. Watched CronJobs' jobs alike, where they may list
   * CronJobs (as `kubectl get cronjobs`), never a 403 for those.
   */
  async listable(caller: Caller, asked: string | null): Promise<ListScope> {
    const { reviewer, pool, home } = this.deps;
    const may = (attributes: AccessAttributes) => reviewer.allowed(caller, attributes);
    if (asked !== null) {
      await this.require(caller, scheduledJobsAttributes('list', asked));
      return { namespaces: [asked], watched: (await may(cronJobsAttributes('list', asked))) ? [asked] : [] };
    }
    const everywhere = scheduledJobsAttributes('list', null);
    const [jobsEverywhere, cronJobsEverywhere] = await Promise.all([
      may(everywhere),
      may(cronJobsAttributes('list', null)),
    ]);
    if (jobsEverywhere && cronJobsEverywhere) return { namespaces: null, watched: null };
    const candidates = [...new Set([home, ...(await listJobNamespaces(pool, home))])];
    const where = async (allowed: (namespace: string) => AccessAttributes) => {
      const decisions = await Promise.all(candidates.map((namespace) => may(allowed(namespace))));
      return candidates.filter((_, i) => decisions[i]);
    };
    const namespaces = jobsEverywhere ? null : await where((ns) => scheduledJobsAttributes('list', ns));
    if (namespaces?.length === 0) throw new HttpError(403, forbiddenMessage(caller.username, everywhere));
    const watched = cronJobsEverywhere ? null : await where((ns) => cronJobsAttributes('list', ns));
    return { namespaces, watched };
  }

  /**
   * One of the verbs a request about job `jobId` needs on its resource (`read`: reading it, its runs):
   * the request's `need` for a ScheduledJob's job, `watched` for a watched CronJob's. Whether the
   * job exists is told only to a caller who may see it (get it) or may get every job: anyone else
   * gets the same 403 for a job that is not there as for one they may not see, naming no namespace.
   */
  async job(
    caller: Caller,
    jobId: number,
    request: { need: JobNeed; watched: JobNeed } | 'read',
  ): Promise<void> {
    const target = await this.targetOf(jobId);
    if (!target) {
      // No such job: the route's 404 for one who could see any job, else the 403 of one not seen.
      if (await this.deps.reviewer.allowed(caller, scheduledJobsAttributes('get', null))) return;
      const asked = request === 'read' ? READ_JOB : request.need;
      throw this.unseen(caller, asked, `job ${jobId}`);
    }
    const read = readNeedOf(target);
    const need = request === 'read' ? read : target.watched ? request.watched : request.need;
    for (const verb of need.verbs) {
      if (await this.deps.reviewer.allowed(caller, jobAttributes(need.resource, verb, target))) return;
    }
    // What is missing is said only to a caller who may see the job: anyone else learns nothing of it.
    const mayGet =
      need !== read &&
      (await this.deps.reviewer.allowed(caller, jobAttributes(read.resource, 'get', target)));
    if (!mayGet) throw this.unseen(caller, need, `job ${jobId}`);
    throw new HttpError(
      403,
      forbiddenMessage(caller.username, jobAttributes(need.resource, need.verbs[0]!, target)),
    );
  }

  /** Reading execution `executionId`: reading its job; unknown ids as in `job`. */
  async execution(caller: Caller, executionId: number): Promise<void> {
    const jobId = await findJobOfExecution(this.deps.pool, executionId);
    const target = jobId === null ? null : await this.targetOf(jobId);
    const read = target ? readNeedOf(target) : READ_JOB;
    if (target && (await this.deps.reviewer.allowed(caller, jobAttributes(read.resource, 'get', target))))
      return;
    if (!target && (await this.deps.reviewer.allowed(caller, scheduledJobsAttributes('get', null)))) return;
    throw this.unseen(caller, read, `execution ${executionId}`);
  }

  /** The 403 of what the caller may not see or what is not there: the same words for both. */
  private unseen(caller: Caller, need: JobNeed, what: string): HttpError {
    const verb = need.verbs[0]!;
    return new HttpError(
      403,
      unseenMessage(caller.username, verb, need.resource, groupOf(need.resource), what),
    );
  }

  /**
   * The job's resource as RBAC names it: a watched CronJob's job, the CronJob; else its ScheduledJob,
   * where it was written, or where the service writes it (its own namespace, the name the API name
   * maps to) for a job not written yet.
   */
  private async targetOf(jobId: number): Promise<JobTarget | null> {
    const found = await findJobResource(this.deps.pool, jobId);
    if (!found) return null;
    if (found.cronJobName !== null && found.namespace !== null)
      return { namespace: found.namespace, name: found.cronJobName, watched: true };
    return {
      namespace: found.namespace ?? this.deps.home,
      name: found.resourceName ?? crNameForJobName(found.name),
      watched: false,
    };
  }
}
