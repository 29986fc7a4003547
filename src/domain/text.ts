import { z } from 'zod';

/**
 * Postgres `text` (and `jsonb`) cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form
 * (the driver would silently write U+FFFD for it). Text that we must keep whatever it holds (a
 * command's output) goes through `storableText`; text a client sends us is refused with a 400 by
 * `textSchema` instead, so that what is stored is exactly what was sent.
 */

/** Shown in place of a NUL byte: SYMBOL FOR NULL, visible in the dashboard, alerts and e-mail. */
export const NUL_SYMBOL = '\u2400';

const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SURROGATE = /[\ud800-\udfff]/;

/**
 * `value` made storable in Postgres text: each NUL becomes "␀" (U+2400) and each lone surrogate
 * U+FFFD, as invalid UTF-8 already does when bytes are decoded. Everything else is kept as it is.
 */
export function storableText(value: string): string {
  if (!value.includes(NUL) && !SURROGATE.test(value)) return value;
  return value.replaceAll(NUL, NUL_SYMBOL).replace(LONE_SURROGATE, '\ufffd');
}

export const hasNoNul = (value: string): boolean => !value.includes(NUL);
const isWellFormed = (value: string): boolean => !value.match(LONE_SURROGATE);

export const NUL_MESSAGE = 'must not contain NUL characters';
export const SURROGATE_MESSAGE = 'must be valid Unicode (it contains an unpaired surrogate)';

/** What keeps `value` from entering the database as sent, or null when nothing does. */
export function textProblem(value: string): string | null {
  if (!hasNoNul(value)) return NUL_MESSAGE;
  if (!isWellFormed(value)) return SURROGATE_MESSAGE;
  return null;
}

/**
 * A string field that enters the database as sent. NUL is refused (Postgres text cannot hold it),
 * and so is a lone surrogate (it would be stored as U+FFFD, not as sent), with messages that the
 * caller's path prefix turns into `command: must not contain NUL characters`. Chain `.min`,
 * `.max`, `.nullish` etc. as on `z.string()`.
 */
export function textSchema(typeMessage = 'must be a string') {
  return z
    .string({ error: typeMessage })
    .refine(hasNoNul, { error: NUL_MESSAGE, abort: true })
    .refine(isWellFormed, { error: SURROGATE_MESSAGE, abort: true });
}
