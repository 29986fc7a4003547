import { request as httpRequest } from 'node:http';
import type { TestService } from './service';

/** An answer as the client saw it on the wire. */
export interface RawAnswer {
  status: number;
  /** Name and value pairs in the order they came, without Date (it moves with the clock). */
  headers: string[][];
  body: string;
}

/**
 * Sends one request with exactly the headers given (node:http adds only Host and, for a body
 * without a length, chunked transfer) and reads the answer as it came.
 */
export function rawRequest(
  service: TestService,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest(`${service.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const pairs: string[][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i]!.toLowerCase() !== 'date')
            pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        }
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Counts the requests that reach Express (the app calls `app.handle` for each). */
export function countAppRequests(service: TestService): { count: () => number; restore: () => void } {
  // `handle` is Express's own, left out of its typings.
  const app = service.app as unknown as { handle: (...args: unknown[]) => void };
  const spy = jest.spyOn(app, 'handle');
  return { count: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
}
