import type { IncomingMessage } from 'node:http';
import type { ReadFreshness } from '../caching/versionedRenders';

/** `no-cache`, or `max-age=0`, among a Cache-Control header's comma-separated directives. */
const ASKS_FOR_CURRENT = /(?:^|,)\s*(?:no-cache|max-age\s*=\s*"?0+"?)\s*(?:,|$)/i;

/**
 * How current the answer to a read must be (caching/versionedRenders.ts, ReadFreshness).
 *
 * A read is `recent` unless it asks otherwise as HTTP asks a cache to check with the origin:
 * `Cache-Control: no-cache` or `max-age=0` (what a browser's reload sends), or the HTTP/1.0
 * `Pragma: no-cache`. Then it is `current`: it shows every write committed before it came, by any
 * process, at the cost of a round trip to the database.
 */
export function freshnessAsked(req: IncomingMessage): ReadFreshness {
  const cacheControl = req.headers['cache-control'];
  const pragma = req.headers.pragma;
  if (cacheControl === undefined && pragma === undefined) return 'recent';
  const asks = ASKS_FOR_CURRENT.test(cacheControl ?? '') || /^\s*no-cache\s*$/i.test(pragma ?? '');
  return asks ? 'current' : 'recent';
}
