import { Router } from 'express';
import type { Pool } from 'pg';
import { notFound } from '../../domain/errors';
import { parsePathId } from '../../httpKit/validate';
import { bodyOf, parseInput } from '../shared/validation';
import { LABEL_NOT_FOUND } from './labelNotFound';
import { labelCreateSchema, labelUpdateSchema } from './labelSchemas';
import { deleteLabel, insertLabel, listLabels, updateLabel } from './labelStore';

/** `/api/labels`: the labels themselves (filters and links have routers of their own). */
export function labelsRouter(pool: Pool): Router {
  const router = Router();

  router.get('/', async (_req, res) => {
    res.json(await listLabels(pool));
  });

  router.post('/', async (req, res) => {
    const label = parseInput(labelCreateSchema, bodyOf(req.body));
    res.status(201).json({ id: await insertLabel(pool, label) });
  });

  router.put('/:labelId', async (req, res) => {
    const id = parsePathId(req.params, 'labelId');
    const changes = parseInput(labelUpdateSchema, bodyOf(req.body));
    if (!(await updateLabel(pool, id, changes))) throw notFound(LABEL_NOT_FOUND);
    res.json({ ok: true });
  });

  router.delete('/:labelId', async (req, res) => {
    if (!(await deleteLabel(pool, parsePathId(req.params, 'labelId')))) throw notFound(LABEL_NOT_FOUND);
    res.json({ ok: true });
  });

  return router;
}
