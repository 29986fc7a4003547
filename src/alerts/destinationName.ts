import { createHash } from 'node:crypto';

/**
 * A path segment shown as it is: words and short numbers (`services`, `v2`, `ops-alerts`, `job-42`,
 * `123`). Anything else, a token above all (Slack's `T…/B…/<secret>`, Discord's, a GUID, a hash), is
 * left out. Lower case only: random tokens mix cases and digits, names people give paths rarely do.
 */
const WORD_PART = '(?:[a-z]{1,16}[0-9]{0,6}|[0-9]{1,6})';
const PLAIN_SEGMENT = new RegExp(`^${WORD_PART}(?:[-_.]${WORD_PART})*$`);
const MAX_PLAIN_SEGMENT = 40;
const LEFT_OUT = '…';
/** Hex digits of the fingerprint: enough to tell a job's webhooks (ten at most) apart. */
const FINGERPRINT_LENGTH = 4;

/**
 * How a person is shown where an alert went, e.g. in the alert history: enough to tell two
 * destinations apart, nothing that would let whoever sees it (over a shoulder, in a screenshot)
 * send to it. A webhook shows its host and port and the plain words of its path; a token in the
 * path, the query, the fragment and any user name or password are left out (`…`), and then a short
 * fingerprint of the whole URL (`[3fa2]`) tells apart two URLs that differ only in what was left
 * out. An e-mail shows its recipients.
 */
export function destinationName(channel: 'webhook' | 'email', destination: string): string {
  if (channel === 'email') return destination;
  let url: URL;
  try {
    url = new URL(destination);
  } catch {
    return '(not a URL)';
  }
  let leftOut = url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '';
  const segments: string[] = [];
  for (const segment of url.pathname.split('/').slice(1)) {
    if (segment === '' || (segment.length <= MAX_PLAIN_SEGMENT && PLAIN_SEGMENT.test(segment))) {
      segments.push(segment);
      continue;
    }
    leftOut = true;
    // One mark for a run of tokens (Slack's three): how many there were says nothing useful.
    if (segments.at(-1) !== LEFT_OUT) segments.push(LEFT_OUT);
  }
  const path = segments.length === 1 && segments[0] === '' ? '' : `/${segments.join('/')}`;
  const name = `${url.host}${path}${url.search ? `?${LEFT_OUT}` : ''}`;
  return leftOut ? `${name} [${fingerprint(destination)}]` : name;
}

function fingerprint(destination: string): string {
  return createHash('sha256').update(destination).digest('hex').slice(0, FINGERPRINT_LENGTH);
}
