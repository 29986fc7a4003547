import type { ServerResponse } from 'node:http';

/**
 * Answers `body` as the app answers JSON: the header cors() sets (any origin), then those
 * `res.json` sets, in that order.
 */
export function answerJson(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, {
    'Access-Control-Allow-Origin': '*',
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(body.length),
  });
  res.end(body);
}
