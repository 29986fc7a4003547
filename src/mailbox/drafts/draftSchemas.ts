import { z } from 'zod';
import { identityIdInBody, identityIdInQuery } from '../shared/identityId';
import { jsonBody, nullableId, nullableText, reject } from '../shared/validation';

/** Compose modes; the spec names only the default, `new`, and leaves the others to us. */
const COMPOSE_MODES = ['new', 'reply', 'reply_all', 'forward'] as const;

const composeMode = z.enum(COMPOSE_MODES, { error: `must be one of ${COMPOSE_MODES.join(', ')}` });

/** The keys a draft's body may set, in the spec's order. */
export const DRAFT_FIELDS = [
  'to_addresses',
  'cc_addresses',
  'bcc_addresses',
  'subject',
  'text_body',
  'html_body',
  'in_reply_to',
  'references',
  'original_message_id',
  'compose_mode',
] as const;
export type DraftField = (typeof DRAFT_FIELDS)[number];

const textFields = {
  to_addresses: nullableText,
  cc_addresses: nullableText,
  bcc_addresses: nullableText,
  subject: nullableText,
  text_body: nullableText,
  html_body: nullableText,
  in_reply_to: nullableText,
  references: nullableText,
  original_message_id: nullableId,
};

export const draftListQuerySchema = z.object({ identity_id: identityIdInQuery });

/** POST: omitted fields become null; compose_mode omitted or null becomes `new`. */
export const draftCreateSchema = jsonBody({
  identity_id: identityIdInBody,
  ...textFields,
  compose_mode: composeMode.nullable().optional(),
});
export type DraftCreate = z.output<typeof draftCreateSchema>;

/** PUT: only the keys present change (other keys are dropped); compose_mode cannot be null. */
export const draftUpdateSchema = jsonBody({ ...textFields, compose_mode: composeMode.optional() }).transform(
  (fields, ctx) => (Object.keys(fields).length === 0 ? reject(ctx, 'No fields to update') : fields),
);
export type DraftUpdate = z.output<typeof draftUpdateSchema>;
