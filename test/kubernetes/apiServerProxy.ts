import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request that went through the proxy: who sent it (its bearer token) and what it asked. */
export interface ProxiedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  token: string | null;
}

/** What the proxy does to the review requests (TokenReview, SubjectAccessReview). */
export type ReviewFault = 'none' | 'hang' | 'refuse' | 'error';

const REVIEWS = /\/(tokenreviews|subjectaccessreviews)(\?|$)/;

/**
 * An HTTP proxy in front of the emulated API server, for the service's own kubeconfig: it records
 * every request with the bearer token it carried (the emulator's record of who asked), and makes the
 * review endpoints hang, refuse connections or answer 500 when a test says so. Other requests pass.
 */
export class ApiServerProxy {
  readonly requests: ProxiedRequest[] = [];
  fault: ReviewFault = 'none';
  /** Requests that answer 500 after `passing` more of them have gone through (`failAfter`). */
  private failing: { method: string; pattern: RegExp; passing: number } | null = null;
  private readonly held = new Set<ServerResponse>();
  private server!: Server;

  private constructor(private readonly target: URL) {}

  static async start(target: string): Promise<ApiServerProxy> {
    const proxy = new ApiServerProxy(new URL(target));
    proxy.server = createServer((req, res) => proxy.forward(req, res));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The reviews sent so far, by kind. */
  reviews(kind: 'tokenreviews' | 'subjectaccessreviews'): ProxiedRequest[] {
    return this.requests.filter((each) => each.method === 'POST' && each.url.includes(`/${kind}`));
  }

  async stop(): Promise<void> {
    this.releaseHeld();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Lets `passing` more requests of `method` whose path matches `pattern` through, then answers
   * the rest with 500 (an API server failing half-way through a series of writes); null: none fail.
   */
  failAfter(failing: { method: string; pattern: RegExp; passing: number } | null): void {
    this.failing = failing && { ...failing };
  }

  /** Ends the requests held by `hang` (their clients gave up long ago). */
  releaseHeld(): void {
    for (const res of this.held) res.destroy();
    this.held.clear();
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const authorization = req.headers.authorization ?? '';
    const url = req.url ?? '/';
    this.requests.push({
      method: req.method ?? 'GET',
      url,
      token: /^Bearer (.+)$/i.exec(authorization)?.[1] ?? null,
    });
    const failing = this.failing;
    if (failing && req.method === failing.method && failing.pattern.test(url) && failing.passing-- <= 0) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500 }));
      return;
    }
    if (REVIEWS.test(url) && this.fault !== 'none') {
      if (this.fault === 'hang') {
        this.held.add(res);
        return;
      }
      if (this.fault === 'refuse') {
        req.socket.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500 }));
      return;
    }
    const upstream = request(
      {
        host: this.target.hostname,
        port: this.target.port,
        method: req.method,
        path: url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}
