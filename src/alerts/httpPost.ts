import { Agent as HttpAgent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import type { LookupFunction, Socket } from 'node:net';

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The start of the answer's body, at most `readLimit` bytes of it. */
  body: string;
}

export interface PostOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Resolves the host; the connection goes only to the addresses it gives. */
  lookup: LookupFunction;
  readLimit: number;
  /** Keep-alive connections by scheme. */
  agents: { http: HttpAgent; https: HttpsAgent };
}

/**
 * One POST of `body` to `url`, with node:http rather than fetch: fetch cannot be given the name
 * lookup of its connection, and alerts need that one lookup to be the checked one. Redirects are
 * answers like any other (never followed). Rejects on a network error or when `signal` aborts.
 */
export function post(url: URL, body: string, options: PostOptions): Promise<PostAnswer> {
  const secure = url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        agent: secure ? options.agents.https : options.agents.http,
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: options.lookup,
        signal: options.signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        response.on('data', (chunk: Buffer) => {
          if (size >= options.readLimit) return;
          chunks.push(chunk);
          size += chunk.length;
          // Enough to quote in the log: the rest of a large answer is not waited for.
          if (size >= options.readLimit) {
            answer();
            response.destroy();
          }
        });
        response.on('end', answer);
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Keep-alive agents whose every new connection is checked once connected, on the address the
 * socket really reached: `refusal` answers an error for a denied one, and the socket is destroyed
 * before the request is written (its pending write waits for this same 'connect' event, and this
 * listener comes first). The last line of defence behind the lookup and the literal check.
 */
export function guardedAgents(refusal: (remoteAddress: string | undefined) => Error | null): {
  http: HttpAgent;
  https: HttpsAgent;
} {
  const guard = <S extends Duplex | null | undefined>(socket: S): S => {
    socket?.once('connect', () => {
      const error = refusal((socket as unknown as Socket).remoteAddress);
      if (error) socket.destroy(error);
    });
    return socket;
  };
  class GuardedHttpAgent extends HttpAgent {
    override createConnection(...args: Parameters<HttpAgent['createConnection']>) {
      return guard(super.createConnection(...args));
    }
  }
  class GuardedHttpsAgent extends HttpsAgent {
    override createConnection(...args: Parameters<HttpsAgent['createConnection']>) {
      return guard(super.createConnection(...args));
    }
  }
  return {
    http: new GuardedHttpAgent({ keepAlive: true }),
    https: new GuardedHttpsAgent({ keepAlive: true }),
  };
}
