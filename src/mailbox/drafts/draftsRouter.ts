import { Router } from 'express';
import type { Pool } from 'pg';
import { notFound } from '../../domain/errors';
import { parsePathId } from '../../httpKit/validate';
import { bodyOf, parseInput } from '../shared/validation';
import { draftCreateSchema, draftListQuerySchema, draftUpdateSchema } from './draftSchemas';
import { deleteDraft, findDraft, insertDraft, listDrafts, updateDraft } from './draftStore';

const DRAFT_NOT_FOUND = 'Draft not found';

/** `/api/drafts`: an identity's drafts. */
export function draftsRouter(pool: Pool): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const { identity_id } = parseInput(draftListQuerySchema, req.query);
    res.json(await listDrafts(pool, identity_id));
  });

  router.get('/:id', async (req, res) => {
    const draft = await findDraft(pool, parsePathId(req.params));
    if (!draft) throw notFound(DRAFT_NOT_FOUND);
    res.json(draft);
  });

  router.post('/', async (req, res) => {
    const draft = parseInput(draftCreateSchema, bodyOf(req.body));
    res.status(201).json({ id: await insertDraft(pool, draft) });
  });

  router.put('/:id', async (req, res) => {
    const id = parsePathId(req.params);
    const changes = parseInput(draftUpdateSchema, bodyOf(req.body));
    if (!(await updateDraft(pool, id, changes))) throw notFound(DRAFT_NOT_FOUND);
    res.json({ ok: true });
  });

  router.delete('/:id', async (req, res) => {
    if (!(await deleteDraft(pool, parsePathId(req.params)))) throw notFound(DRAFT_NOT_FOUND);
    res.json({ ok: true });
  });

  return router;
}
