import { z } from 'zod';
import { identityIdInBody, identityIdToList } from '../shared/identityId';
import { jsonBody, nullableId, nullableText, reject } from '../shared/validation';

/** Compose modes; the spec names only the default, `new`, and leaves the others to us. */
const COMPOSE_MODES = ['new', 'reply', 'reply_all', 'forward'] as const;

const composeMode = z.enum(COMPOSE_MODES, { error: `must be one of ${COMPOSE_MODES.join(', ')}` });

/**
 * The fields a draft's body may set, but compose_mode, in the spec's order: each is also the
 * column of that name of `mail_drafts`. Everything else about a draft's fields derives from this.
 */
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

export type DraftField = keyof typeof textFields | 'compose_mode';
/** The keys a draft's body may set, in the spec's order. */
export const DRAFT_FIELDS = [
  ...(Object.keys(textFields) as (keyof typeof textFields)[]),
  'compose_mode',
] as const;

/** A draft's fields as stored: each text field a value or null, compose_mode always set. */
export type DraftValues = {
  [K in keyof typeof textFields]: Exclude<z.output<(typeof textFields)[K]>, undefined>;
} & { compose_mode: (typeof COMPOSE_MODES)[number] };

export const draftListQuerySchema = z.object({ identity_id: identityIdToList });

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
