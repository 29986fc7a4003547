import express, { Router, type Request } from 'express';
import type { Pool } from 'pg';
import { notFound } from '../../domain/errors';
import { badRequest, HttpError } from '../../httpKit/httpError';
import { parsePathId } from '../../httpKit/validate';
import { bodyOf, parseInput } from '../shared/validation';
import { messageCreateSchema, rfc822QuerySchema } from './messageSchemas';
import { findMessage, insertMessage, type NewMessage } from './messageStore';
import { parseRfc822, RFC822_LIMIT_BYTES } from './rfc822';

async function messageFromSource(req: Request): Promise<NewMessage> {
  const query = parseInput(rfc822QuerySchema, req.query);
  if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
    throw badRequest('request body must be an RFC 822 message');
  }
  const parsed = await parseRfc822(req.body);
  return { ...parsed, identity_id: query.identity_id, uid: query.uid ?? null, flags: query.flags ?? null };
}

function messageFromJson(body: unknown): NewMessage {
  const input = parseInput(messageCreateSchema, bodyOf(body));
  return {
    identity_id: input.identity_id,
    uid: input.uid ?? null,
    message_id: input.message_id ?? null,
    in_reply_to: input.in_reply_to ?? null,
    subject: input.subject ?? null,
    from_address: input.from_address ?? null,
    from_name: input.from_name ?? null,
    to_addresses: input.to_addresses ?? null,
    date: input.date ?? null,
    flags: input.flags ?? null,
    size: input.size ?? null,
    has_attachments: input.has_attachments ?? false,
    text_body: input.text_body ?? null,
  };
}

/** `/api/messages`: how messages get in (JSON or an RFC 822 source), and the single read. */
export function messagesRouter(pool: Pool): Router {
  const router = Router();
  const rawSource = express.raw({ type: 'message/rfc822', limit: RFC822_LIMIT_BYTES });

  router.post('/', rawSource, async (req, res) => {
    // A request without a Content-Type (and so without a body) reads as an empty JSON object.
    const type = req.headers['content-type']
      ? req.is(['application/json', 'message/rfc822'])
      : 'application/json';
    if (!type) throw new HttpError(415, 'Content-Type must be application/json or message/rfc822');
    const message = type === 'message/rfc822' ? await messageFromSource(req) : messageFromJson(req.body);
    res.status(201).json({ id: await insertMessage(pool, message) });
  });

  router.get('/:id', async (req, res) => {
    const message = await findMessage(pool, parsePathId(req.params));
    if (!message) throw notFound('Message not found');
    res.json(message);
  });

  return router;
}
