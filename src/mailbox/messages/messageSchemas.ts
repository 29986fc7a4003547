import { z } from 'zod';
import { textSchema } from '../../domain/text';
import { singleQueryValue } from '../../httpKit/queryParams';
import { identityIdInBody, identityIdInQuery } from '../shared/identityId';
import { jsonBody, MAX_INTEGER_ID, nullableText } from '../shared/validation';

/** IMAP UIDs are unsigned 32-bit, non-zero. */
export const MAX_UID = 4294967295;
const MAX_FLAGS = 100;

const uid = z
  .number({ error: `must be an integer from 1 to ${MAX_UID} or null` })
  .int({ error: `must be an integer from 1 to ${MAX_UID} or null` })
  .min(1, { error: `must be an integer from 1 to ${MAX_UID} or null` })
  .max(MAX_UID, { error: `must be an integer from 1 to ${MAX_UID} or null` });

/** An IMAP flag or keyword: no spaces, e.g. `\Seen`, `\Flagged`, `$Forwarded`. */
const flag = textSchema('must be strings').regex(/^\S{1,100}$/, {
  error: 'must be non-empty strings of at most 100 characters, no spaces',
});

const flags = z.array(flag, { error: 'must be an array of strings or null' }).max(MAX_FLAGS, {
  error: `must have at most ${MAX_FLAGS} entries`,
});

/**
 * Kept as text: Postgres reads ISO 8601 exactly, microseconds and offset included. zod checks the
 * calendar (no 30 February). The instant must fall in the years 1 to 9999 in UTC, where ISO,
 * Postgres and JavaScript write a date alike (9999-12-31T23:30:00-01:00 is in the year 10000).
 */
const date = z.iso
  .datetime({
    offset: true,
    error: 'must be an ISO 8601 timestamp with a time zone, e.g. 2024-05-01T09:30:00Z',
  })
  .refine(
    (value) => {
      const year = new Date(value).getUTCFullYear();
      return year >= 1 && year <= 9999;
    },
    { error: 'must be in the years 1 to 9999' },
  );

/** POST /api/messages as JSON: the message-summary fields plus identity_id and text_body. */
export const messageCreateSchema = jsonBody({
  identity_id: identityIdInBody,
  uid: uid.nullable().optional(),
  message_id: nullableText,
  in_reply_to: nullableText,
  subject: nullableText,
  from_address: nullableText,
  from_name: nullableText,
  to_addresses: nullableText,
  date: date.nullable().optional(),
  flags: flags.nullable().optional(),
  size: z
    .number({ error: 'must be a non-negative integer or null' })
    .int({ error: 'must be a non-negative integer or null' })
    .min(0, { error: 'must be a non-negative integer or null' })
    .max(MAX_INTEGER_ID, { error: `must be at most ${MAX_INTEGER_ID}` })
    .nullable()
    .optional(),
  has_attachments: z.boolean({ error: 'must be true or false' }).nullable().optional(),
  text_body: nullableText,
});

/** A comma-separated list of flags in a query string, e.g. `flags=\Seen,\Flagged`. */
const flagsInQuery = z
  .string({ error: 'must be a comma-separated list of flags' })
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .pipe(flags)
  .optional();

const uidInQuery = z
  .string({ error: `must be an integer from 1 to ${MAX_UID}` })
  .regex(/^[0-9]+$/, { error: `must be an integer from 1 to ${MAX_UID}` })
  .transform(Number)
  .pipe(uid)
  .optional();

/** POST /api/messages as message/rfc822: what the source cannot say comes in the query. */
export const rfc822QuerySchema = z.object({
  // A repeated identity_id is not a positive integer: the spec's message says so already.
  identity_id: identityIdInQuery,
  uid: singleQueryValue(uidInQuery),
  flags: singleQueryValue(flagsInQuery),
});
