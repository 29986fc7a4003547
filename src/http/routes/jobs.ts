import { Router } from 'express';
import { z } from 'zod';
import { jobInputSchema } from '../../domain/job';
import { NO_CATCH_UP } from '../../domain/slots';
import type { JobService, JobView } from '../../scheduling/jobService';
import { strictObjectError } from '../../domain/zodErrors';
import { parseOrThrow, parsePathId } from '../../httpKit/validate';
import { freshnessAsked } from '../readFreshness';

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
  };
}

/** The bytes `res.json` would send for the list; JobService reuses them while they are current. */
const renderJobList = (views: JobView[]): Buffer => Buffer.from(JSON.stringify(views.map(jobToJson)));

/** The bytes `res.json` would send for one job; JobService reuses them while they are current. */
export const renderJob = (view: JobView): Buffer => Buffer.from(JSON.stringify(jobToJson(view)));

export function jobsRouter(jobs: JobService): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(await jobs.listRendered(renderJobList, freshnessAsked(req)));
  });

  router.post('/', async (req, res) => {
    const input = parseOrThrow(jobInputSchema, req.body);
    res.status(201).json(jobToJson(await jobs.create(input)));
  });

  router.get('/:id', async (req, res) => {
    const body = await jobs.getRendered(parsePathId(req.params), renderJob, freshnessAsked(req));
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(body);
  });

  router.put('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    const input = parseOrThrow(jobInputSchema, req.body);
    res.json(jobToJson(await jobs.replace(id, input)));
  });

  router.delete('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    await jobs.remove(id);
    res.json({ ok: true, id });
  });

  router.patch('/:id/toggle', async (req, res) => {
    const id = parsePathId(req.params);
    const { enabled } = parseOrThrow(toggleSchema, req.body);
    res.json(jobToJson(await jobs.setEnabled(id, enabled)));
  });

  router.post('/:id/run', async (req, res) => {
    const job = await jobs.runNow(parsePathId(req.params));
    res.json({ message: `Job "${job.name}" triggered`, jobId: job.id });
  });

  return router;
}
