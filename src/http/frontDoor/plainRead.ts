import type { IncomingMessage } from 'node:http';

/**
 * A GET the front door may answer: no body (the app's JSON parser reads, or refuses, any body) and
 * unconditional (res.send answers a conditional GET 304 when it is fresh, and `If-None-Match: *`
 * is fresh even without an ETag, which the app does not send: the app decides those).
 */
export function isPlainRead(req: IncomingMessage): boolean {
  const { headers } = req;
  const length = headers['content-length'];
  const hasBody = headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  return !hasBody && headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined;
}
