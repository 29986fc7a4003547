import { Router } from 'express';
import type { Pool } from 'pg';
import { parsePathId } from '../../httpKit/validate';
import { parseInput } from '../shared/validation';
import {
  filterCountQuerySchema,
  filterQuerySchema,
  filterRelatedQuerySchema,
  labelMessagesQuerySchema,
  labelRelatedQuerySchema,
} from './filterSchemas';
import { countFiltered, filterMessagesJson, labelMessagesJson, relatedLabels } from './filterStore';

/**
 * The read side of labels, under `/api/labels`: messages by label(s), counts and related labels.
 * An unknown label id is not an error here: no message has it, so the answer is empty. Message
 * lists come from the database as JSON text, sent as they are (see `summariesJsonArray`).
 */
export function filtersRouter(pool: Pool): Router {
  const router = Router();

  router.get('/filter', async (req, res) => {
    const { ids, limit, offset } = parseInput(filterQuerySchema, req.query);
    res.type('json').send(await filterMessagesJson(pool, ids, { limit, offset }));
  });

  router.get('/filter/count', async (req, res) => {
    const { ids } = parseInput(filterCountQuerySchema, req.query);
    res.json(await countFiltered(pool, ids));
  });

  router.get('/filter/related', async (req, res) => {
    const { ids, limit } = parseInput(filterRelatedQuerySchema, req.query);
    res.json(await relatedLabels(pool, ids, limit));
  });

  router.get('/:labelId/related', async (req, res) => {
    const labelId = parsePathId(req.params, 'labelId');
    const { limit } = parseInput(labelRelatedQuerySchema, req.query);
    res.json(await relatedLabels(pool, [labelId], limit));
  });

  router.get('/:labelId/messages', async (req, res) => {
    const labelId = parsePathId(req.params, 'labelId');
    const page = parseInput(labelMessagesQuerySchema, req.query);
    res.type('json').send(await labelMessagesJson(pool, labelId, page));
  });

  return router;
}
