import { Router } from 'express';
import { z } from 'zod';
import { checkCron, describeCron, nextFireTime } from '../../domain/cron';
import type { Clock } from '../../domain/clock';
import { timeZoneSchema } from '../../domain/job';
import { singleQueryValue } from '../queryParams';
import { parseOrThrow } from '../validate';

const describeQuerySchema = z.object({
  expr: singleQueryValue(z.string({ error: 'query parameter is required' })),
  timezone: singleQueryValue(timeZoneSchema.optional()),
});

export function cronRouter(clock: Clock, defaultTimeZone: string): Router {
  const router = Router();

  // An invalid expression is an answer, not an error: 200 with valid false and the reason.
  router.get('/describe', (req, res) => {
    const query = parseOrThrow(describeQuerySchema, req.query);
    const check = checkCron(query.expr);
    if (!check.valid) {
      res.json({ valid: false, error: check.error });
      return;
    }
    const timeZone = query.timezone ?? defaultTimeZone;
    res.json({
      valid: true,
      description: describeCron(check.fields),
      nextRun: nextFireTime(check.fields, timeZone, clock.now()),
    });
  });

  return router;
}
