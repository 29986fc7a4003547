import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A write the proxy passed on, and what the API server answered. */
interface DryRunWrite {
  method: string;
  path: string;
  status: number;
  /** The Warning headers of the answer (several header lines come joined with ", "). */
  warnings: string[];
  /** The answer's body when it was not a success. */
  refusal?: string;
}

export interface DryRunProxy {
  url: string;
  /** Every write so far, in order. */
  writes: DryRunWrite[];
  stop(): Promise<void>;
}

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];
/** Headers of one connection, which fetch sets itself. */
const HOP_HEADERS = ['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'];

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * An HTTP proxy in front of an API server that turns every write into a server-side dry run with
 * strict field validation (`?dryRun=All&fieldValidation=Strict`, as `kubectl apply
 * --dry-run=server` sends it) and records the answers; reads pass unchanged. Crondeck's own
 * clients pointed at it send exactly the requests they send to a cluster (same paths, content types,
 * bodies, field manager), and nothing is stored.
 */
export async function startDryRunProxy(upstream: string): Promise<DryRunProxy> {
  const writes: DryRunWrite[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', upstream);
      const method = req.method ?? 'GET';
      const isWrite = WRITES.includes(method);
      if (isWrite) {
        url.searchParams.set('dryRun', 'All');
        url.searchParams.set('fieldValidation', 'Strict');
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          (entry): entry is [string, string] =>
            typeof entry[1] === 'string' && !HOP_HEADERS.includes(entry[0]),
        ),
      );
      const answer = await fetch(url, { method, headers, body: body.length > 0 ? body : undefined });
      const text = await answer.text();
      if (isWrite) {
        const warning = answer.headers.get('warning');
        writes.push({
          method,
          path: url.pathname,
          status: answer.status,
          warnings: warning ? [warning] : [],
          ...(answer.ok ? {} : { refusal: text }),
        });
      }
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(text);
    })().catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writes,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
