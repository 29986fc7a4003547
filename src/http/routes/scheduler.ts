import { Router } from 'express';
import { z } from 'zod';
import type { SchedulerControl } from '../../scheduling/schedulerControl';
import { strictObjectError } from '../../domain/zodErrors';
import { parseOrThrow } from '../../httpKit/validate';

const pauseSchema = z
  .strictObject(
    {
      until: z.iso
        .datetime({ offset: true, error: 'must be an ISO 8601 timestamp such as 2026-01-31T18:00:00Z' })
        .transform((value) => new Date(value))
        .nullish(),
    },
    { error: strictObjectError('request body must be a JSON object { "until"?: ISO 8601 timestamp }') },
  )
  .optional();

export function schedulerRouter(scheduler: SchedulerControl): Router {
  const router = Router();

  router.get('/status', async (_req, res) => {
    res.json(await scheduler.status());
  });

  router.post('/pause', async (req, res) => {
    const body = parseOrThrow(pauseSchema, req.body);
    const state = await scheduler.pause(body?.until ?? null);
    res.json({ paused: true, until: state.until });
  });

  router.post('/resume', async (_req, res) => {
    await scheduler.resume();
    res.json({ paused: false });
  });

  return router;
}
