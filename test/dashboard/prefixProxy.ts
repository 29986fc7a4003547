import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PrefixProxy {
  /** The proxy's origin, e.g. `http://127.0.0.1:41234`; the service is under `${url}${prefix}/`. */
  url: string;
  /** Every path the proxy was asked for and did not forward (outside the prefix). */
  strays: string[];
  close(): Promise<void>;
}

/**
 * A proxy that serves `target` under `prefix` and strips it on the way, as an Ingress with
 * nginx's `rewrite-target` does: `/crondeck/api/jobs` reaches the service as `/api/jobs`.
 * Everything outside the prefix is a 404 (and recorded): a page that asks for `/assets/…` or
 * `/api/…` by absolute path breaks here as it would behind the real thing. Headers (Host, Origin,
 * Location) pass untouched.
 */
export async function startPrefixProxy(target: string, prefix: string): Promise<PrefixProxy> {
  const upstream = new URL(target);
  const strays: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url !== prefix && !url.startsWith(`${prefix}/`) && !url.startsWith(`${prefix}?`)) {
      strays.push(`${req.method} ${url}`);
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not under ${prefix}/`);
      return;
    }
    const path = url.slice(prefix.length);
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: path.startsWith('/') ? path : `/${path}`,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    strays,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
