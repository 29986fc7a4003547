import type { AddressObject, HeaderLines } from 'mailparser';
import { storableText } from '../../domain/text';
import { badRequest } from '../../httpKit/httpError';
import { textOfHtmlInTurns } from './htmlText';
import type { NewMessage } from './messageStore';

/** Largest RFC 822 source accepted (25 MiB, the usual limit of mail servers); 413 above. */
export const RFC822_LIMIT_BYTES = 25 * 1024 * 1024;

/** What an RFC 822 source says about a message, in the fields of POST /api/messages. */
export type ParsedSource = Omit<NewMessage, 'identity_id' | 'uid' | 'flags' | 'date' | 'size'> & {
  date: Date | null;
  size: number;
};

/**
 * A source says what it says: a decoded part may hold NUL or bytes that are not UTF-8, which are
 * kept visibly (see storableText) rather than refused or dropped.
 */
const clean = (value: string | undefined | null): string | null => (value ? storableText(value) : null);

const addressList = (field: AddressObject | AddressObject[] | undefined): string | null =>
  field ? clean((Array.isArray(field) ? field : [field]).map((list) => list.text).join(', ')) : null;

/**
 * The Date header, or null when it is missing or unreadable (mailparser would substitute the
 * current time, which would be a made-up date), or outside the years Postgres and ISO share.
 */
function headerDate(headerLines: HeaderLines): Date | null {
  const line = headerLines.find((header) => header.key === 'date')?.line;
  if (!line) return null;
  const date = new Date(line.slice(line.indexOf(':') + 1).trim());
  const year = date.getUTCFullYear();
  return Number.isNaN(date.getTime()) || year < 1 || year > 9999 ? null : date;
}

/**
 * Parses a source with mailparser. The plain text body is kept; a message without one (or whose
 * plain parts are blank) gets the text of its HTML. That text is ours (htmlText.ts), never
 * mailparser's (`skipHtmlToText`): the html-to-text that mailparser runs on a message that is HTML
 * as a whole takes time quadratic in the HTML's nesting, on the event loop (0.08 s at 10,000 levels,
 * 1.6 s at 40,000 here), and overflows its stack at 10,000, which failed the message (issue 38: a
 * body of 200,000 nested `<div>`s held the service for 29 s, then got a 400). Ours is linear and
 * lets the event loop run between its steps.
 */
export async function parseRfc822(source: Buffer): Promise<ParsedSource> {
  // Loaded on the first message, not at start: mailparser and the encodings it brings cost some
  // 9 MB of resident memory that a service nobody sends mail to never needs.
  const { simpleParser } = require('mailparser') as typeof import('mailparser');
  let mail;
  try {
    mail = await simpleParser(source, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      keepCidLinks: true,
    });
  } catch {
    throw badRequest('request body is not a readable RFC 822 message');
  }
  const from = mail.from?.value[0];
  // Blank when the message has no plain part: mailparser then puts an empty text for its HTML.
  const plainText = mail.text?.trim() ? mail.text : null;
  const htmlText =
    plainText === null && typeof mail.html === 'string' ? await textOfHtmlInTurns(mail.html) : null;
  return {
    message_id: clean(mail.messageId),
    in_reply_to: clean(mail.inReplyTo),
    subject: clean(mail.subject),
    from_address: clean(from?.address),
    from_name: clean(from?.name),
    to_addresses: addressList(mail.to),
    date: headerDate(mail.headerLines),
    size: source.length,
    has_attachments: mail.attachments.length > 0,
    text_body: clean(plainText ?? htmlText),
  };
}
