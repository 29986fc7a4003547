import { Router } from 'express';
import { z } from 'zod';
import { jobInputSchema } from '../../domain/job';
import { NO_CATCH_UP } from '../../domain/slots';
import type { JobService, JobView } from '../../scheduling/jobService';
import { strictObjectError } from '../../domain/zodErrors';
import { parseOrThrow, parsePathId } from '../../httpKit/validate';
import { freshnessAsked } from '../readFreshness';
import { JobListBodies } from '../../caching/jobListBody';
import { jobListPageOf, pageOfJobs, sendJsonParts } from './jobList';
import { callerOf } from '../../auth/requestCaller';
import { listFilterOf } from '../listFilter';
import { passesNamespaceFilter } from '../../store/namespaceFilter';

const toggleSchema = z.strictObject(
  { enabled: z.boolean({ error: 'is required and must be true or false' }) },
  { error: strictObjectError('request body must be a JSON object { "enabled": true|false }') },
);

/** The job as JSON: spec fields first, then ours. Timestamps are ISO 8601 UTC with milliseconds. */
function jobToJson(job: JobView) {
  return {
    id: job.id,
    name: job.name,
    schedule: job.schedule,
    command: job.command,
    timeout: job.timeout,
    retry: job.retry,
    description: job.description,
    tags: job.tags,
    timezone: job.timezone,
    enabled: job.enabled,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    nextRun: job.nextRun,
    lastRun: job.lastRun,
    lastStatus: job.lastStatus,
    running: job.running,
    // Set while the job's alert policy holds it suspended after failing runs (enabled is then false).
    suspendedReason: job.suspendedReason,
    suspendedAt: job.suspendedAt,
    lateAfterSeconds: job.lateAfterSeconds,
    catchUp: job.catchUp ?? NO_CATCH_UP,
    allowDuplicateSlots: job.allowDuplicateSlots,
    lastSlot: job.lastSlot,
    // Extensions (SERVICE_AUTH=kubernetes, docs/api.md): where the job lives and who changed it last.
    namespace: job.namespace ?? null,
    changedBy: job.changedBy ?? null,
    // Only a watched CronJob's job (issue 40, docs/watched-cronjobs.md) says where it comes from:
    // every other job reads as before.
    ...(job.cronJob
      ? {
          source: 'cronjob' as const,
          cronJob: {
            namespace: job.cronJob.namespace,
            name: job.cronJob.name,
            watchedBy: job.cronJob.watchedBy,
            allowBackfill: job.cronJob.allowBackfill,
          },
        }
      : {}),
  };
}

/** The bytes `res.json` would send for a list read for one request (a namespace's jobs). */
const renderJobList = (views: JobView[]): Buffer => Buffer.from(JSON.stringify(views.map(jobToJson)));

/** The bytes `res.json` would send for one job; JobService reuses them while they are current. */
export const renderJob = (view: JobView): Buffer => Buffer.from(JSON.stringify(jobToJson(view)));

/**
 * `home`: in Kubernetes mode, the namespace of a job not written to one yet (NamespaceFilter); null
 * locally. A change is made for the request's caller (SERVICE_AUTH=kubernetes), else the service's.
 */
export function jobsRouter(jobs: JobService, home: string | null = null): Router {
  const router = Router();

  // The whole list, rendered in groups that later renderings share (caching/jobListBody.ts).
  const listBodies = new JobListBodies((view: JobView) => JSON.stringify(jobToJson(view)));
  const renderListBody = (views: JobView[]) => listBodies.render(views);

  router.get('/', async (req, res) => {
    // `?limit=&after=`: a page of the list (jobList.ts); without them, the whole list, as the spec has it.
    const page = jobListPageOf(req.query);
    const filter = listFilterOf(req, home);
    if (filter) {
      // Some namespaces' jobs: read for this request (the kept rendering is the whole list).
      const views = (await jobs.list()).filter((view) =>
        passesNamespaceFilter(filter, {
          namespace: view.namespace ?? null,
          watched: view.cronJob !== undefined,
        }),
      );
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.send(renderJobList(page ? pageOfJobs(views, page) : views));
      return;
    }
    if (page) {
      // Read for this request: a page costs its jobs, never the whole list's read.
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.send(renderJobList(await jobs.listPage(page)));
      return;
    }
    sendJsonParts(res, await jobs.listRendered(renderListBody, freshnessAsked(req)));
  });

  router.post('/', async (req, res) => {
    const input = parseOrThrow(jobInputSchema, req.body);
    res.status(201).json(jobToJson(await jobs.create(input, callerOf(req))));
  });

  router.get('/:id', async (req, res) => {
    const body = await jobs.getRendered(parsePathId(req.params), renderJob, freshnessAsked(req));
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(body);
  });

  router.put('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    const input = parseOrThrow(jobInputSchema, req.body);
    res.json(jobToJson(await jobs.replace(id, input, callerOf(req))));
  });

  router.delete('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    await jobs.remove(id, callerOf(req));
    res.json({ ok: true, id });
  });

  router.patch('/:id/toggle', async (req, res) => {
    const id = parsePathId(req.params);
    const { enabled } = parseOrThrow(toggleSchema, req.body);
    res.json(jobToJson(await jobs.setEnabled(id, enabled, callerOf(req))));
  });

  router.post('/:id/run', async (req, res) => {
    const job = await jobs.runNow(parsePathId(req.params), callerOf(req));
    res.json({ message: `Job "${job.name}" triggered`, jobId: job.id });
  });

  return router;
}
