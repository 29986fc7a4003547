import { z } from 'zod';

/**
 * Postgres `text` and `jsonb` cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form
 * (in `text` the driver silently writes U+FFFD for it; in `jsonb` its `\ud800` escape is an
 * error). Text that we must keep whatever it holds (a command's output, a mail source) goes
 * through `storableText`. Text a client sends goes through `textSchema`: NUL is refused with a
 * 400, since only the client knows what it meant, and a lone surrogate becomes U+FFFD, as every
 * UTF-8 encoder (a browser's included) writes it.
 */

/** Shown in place of a NUL byte: SYMBOL FOR NULL, visible in the dashboard, alerts and e-mail. */
const NUL_SYMBOL = '\u2400';
const NUL_MESSAGE = 'must not contain NUL characters';

const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SURROGATE = /[\ud800-\udfff]/;

/** `value` with each lone surrogate replaced by U+FFFD; pairs (emoji) are kept. */
function wellFormedText(value: string): string {
  return SURROGATE.test(value) ? value.replace(LONE_SURROGATE, '\ufffd') : value;
}

/**
 * `value` made storable in Postgres text: each NUL becomes "␀" (U+2400) and each lone surrogate
 * U+FFFD, as invalid UTF-8 already does when bytes are decoded. Everything else is kept as it is.
 */
export function storableText(value: string): string {
  return wellFormedText(value.includes(NUL) ? value.replaceAll(NUL, NUL_SYMBOL) : value);
}

const hasNoNul = (value: string): boolean => !value.includes(NUL);

/** What keeps `value` from entering the database, or null when nothing does. */
export function textProblem(value: string): string | null {
  return hasNoNul(value) ? null : NUL_MESSAGE;
}

/**
 * A string field that a client sends us: NUL is refused with a message that the caller's path
 * prefix turns into `command: must not contain NUL characters`; a lone surrogate becomes U+FFFD.
 * Chain `.min`, `.max`, `.nullish` etc. as on `z.string()`.
 */
export function textSchema(typeMessage = 'must be a string') {
  return z
    .string({ error: typeMessage })
    .refine(hasNoNul, { error: NUL_MESSAGE, abort: true })
    .overwrite(wellFormedText);
}
