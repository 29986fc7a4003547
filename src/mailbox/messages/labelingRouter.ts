import { Router } from 'express';
import type { Pool } from 'pg';
import { notFound } from '../../domain/errors';
import { parsePathId } from '../../httpKit/validate';
import { LABEL_NOT_FOUND } from '../labels/labelNotFound';
import { labelMessage, type LinkOutcome, unlabelMessage } from './messageStore';

function answer(outcome: LinkOutcome): { ok: true } {
  if (outcome === 'label_not_found') throw notFound(LABEL_NOT_FOUND);
  if (outcome === 'message_not_found') throw notFound('Message not found');
  return { ok: true };
}

/** `/api/labels/:labelId/messages/:messageId`: puts a label on a message (PUT) or takes it off. */
export function labelingRouter(pool: Pool): Router {
  const router = Router();

  router.put('/:labelId/messages/:messageId', async (req, res) => {
    const labelId = parsePathId(req.params, 'labelId');
    const messageId = parsePathId(req.params, 'messageId');
    res.json(answer(await labelMessage(pool, labelId, messageId)));
  });

  router.delete('/:labelId/messages/:messageId', async (req, res) => {
    const labelId = parsePathId(req.params, 'labelId');
    const messageId = parsePathId(req.params, 'messageId');
    res.json(answer(await unlabelMessage(pool, labelId, messageId)));
  });

  return router;
}
