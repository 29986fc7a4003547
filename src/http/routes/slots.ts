import express, { Router } from 'express';
import { z } from 'zod';
import { backfillRequestSchema, slotClaimSchema } from '../../domain/slots';
import type { Logger } from '../../logging/logger';
import type { SlotService } from '../../scheduling/slotService';
import { singleQueryValue } from '../../httpKit/queryParams';
import { parseOrThrow, parsePathId } from '../../httpKit/validate';
import { requireJobToken } from '../jobTokenAuth';
import { freshnessAsked } from '../readFreshness';
import { callerOf } from '../../auth/requestCaller';

const MAX_SLOTS_LIMIT = 1000;
const DEFAULT_SLOTS_LIMIT = 100;

const instantParam = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp' })
  .transform((value) => new Date(value));

const listQuerySchema = z
  .object({
    from: singleQueryValue(instantParam.optional()),
    to: singleQueryValue(instantParam.optional()),
    limit: singleQueryValue(
      z
        .string({ error: `must be an integer from 1 to ${MAX_SLOTS_LIMIT}` })
        .regex(/^[0-9]+$/, { error: `must be an integer from 1 to ${MAX_SLOTS_LIMIT}` })
        .transform(Number)
        .refine((n) => n >= 1 && n <= MAX_SLOTS_LIMIT, {
          error: `must be an integer from 1 to ${MAX_SLOTS_LIMIT}`,
        })
        .default(DEFAULT_SLOTS_LIMIT),
    ),
  })
  .refine(({ from, to }) => !(from instanceof Date && to instanceof Date) || from.getTime() <= to.getTime(), {
    path: ['from'],
    error: 'must not be after to',
  });

/**
 * `GET /api/jobs/:id/slots` (the job's judged slots, newest first) and `POST /api/jobs/:id/backfill`
 * (202 with the number of slots it runs), behind the API token like the rest of `/api`.
 */
export function slotsRouter(slots: SlotService): Router {
  const router = Router({ mergeParams: true });

  router.get('/slots', async (req, res) => {
    const jobId = parsePathId(req.params);
    const { from, to, limit } = parseOrThrow(listQuerySchema, req.query);
    const range = { from: from ?? null, to: to ?? null, limit };
    const body = await slots.listJson(jobId, range, freshnessAsked(req));
    // The header res.json sets; a Buffer is sent as it is, without a conversion per request.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(body);
  });

  router.post('/backfill', async (req, res) => {
    const jobId = parsePathId(req.params);
    const request = parseOrThrow(backfillRequestSchema, req.body);
    res.status(202).json({ slots: await slots.backfill(jobId, request, callerOf(req)) });
  });

  return router;
}

/** Claims are small; anything larger is not one. */
const CLAIM_BODY_LIMIT_BYTES = 4096;

/**
 * `POST /api/jobs/:id/slots/claim`: a runner claims its run's slot before it starts the command,
 * with the job's report token (as pod reports do). 200 `{ claimed: true, scheduledAt }` for the
 * first claimant (or the same run again), `{ claimed: true, duplicate: true, scheduledAt }` for a
 * further one of a job that allows duplicate slots, 409 for a further one otherwise: that runner
 * exits without running the command.
 */
export function slotClaimRouter(options: {
  slots: SlotService;
  reportSecret: string | null;
  logger: Logger;
}): Router {
  const router = Router({ mergeParams: true });
  router.post(
    '/',
    requireJobToken(options.reportSecret, 'slot claims'),
    express.json({ limit: CLAIM_BODY_LIMIT_BYTES, strict: false }),
    async (req, res) => {
      const jobId = parsePathId(req.params);
      const { scheduledAt, runKey } = parseOrThrow(slotClaimSchema, req.body);
      const { slot, answer } = await options.slots.claim(jobId, scheduledAt, runKey);
      if (!answer.claimed) {
        options.logger.info('a second run of a slot was refused', {
          jobId,
          scheduledAt: slot,
          runKey,
          holder: answer.holder,
        });
        res.status(409).json({
          error: `slot ${slot.toISOString()} was already claimed by another run (${answer.holder})`,
        });
        return;
      }
      res.json(
        answer.duplicate
          ? { claimed: true, duplicate: true, scheduledAt: slot }
          : { claimed: true, scheduledAt: slot },
      );
    },
  );
  return router;
}
