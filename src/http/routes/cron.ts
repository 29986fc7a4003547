import { Router } from 'express';
import { z } from 'zod';
import { describeSchedule } from '../../domain/cronDescription';
import type { Clock } from '../../domain/clock';
import { timeZoneSchema } from '../../domain/job';
import { singleQueryValue } from '../../httpKit/queryParams';
import { parseOrThrow } from '../../httpKit/validate';

const describeQuerySchema = z.object({
  expr: singleQueryValue(z.string({ error: 'query parameter is required' })),
  timezone: singleQueryValue(timeZoneSchema.optional()),
});

export function cronRouter(clock: Clock, defaultTimeZone: string): Router {
  const router = Router();

  // An invalid expression is an answer, not an error: 200 with valid false and the reason. The
  // dashboard asks while the user types, so no expression may turn this into a 500.
  router.get('/describe', (req, res) => {
    const query = parseOrThrow(describeQuerySchema, req.query);
    res.json(describeSchedule(query.expr, query.timezone ?? defaultTimeZone, clock.now()));
  });

  return router;
}
