import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  text: string;
  // The tests compare whatever shape the sender posted.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  /** What the receiver answered; `hang` when it never did. */
  answered: number | 'hang';
}

/** What the receiver does with a request: a status (and optional body), or `hang` (never answer). */
export type Responder = (
  request: ReceivedRequest,
  index: number,
) => { status: number; body?: string } | 'hang';

/**
 * A real HTTP server on a loopback port that records every request it gets, as a webhook receiver
 * (a chat platform, a team's own endpoint) would see it.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private responder: Responder = () => ({ status: 200, body: 'ok' });
  private readonly hanging = new Set<ServerResponse>();

  private readonly server: Server;
  url = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.handle(req.method ?? '', req.url ?? '', req.headers, chunks, res));
    });
  }

  static async start(responder?: Responder): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    if (responder) receiver.respondWith(responder);
    return receiver;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  /** Requests to one path, in arrival order. */
  to(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    chunks: Buffer[],
    res: ServerResponse,
  ): void {
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const request: ReceivedRequest = { method, path, headers, text, json, answered: 'hang' };
    const answer = this.responder(request, this.requests.length);
    this.requests.push(request);
    if (answer === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    request.answered = answer.status;
    res.writeHead(answer.status, { 'content-type': 'text/plain' });
    res.end(answer.body ?? '');
  }
}
