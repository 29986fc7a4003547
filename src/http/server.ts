import {
  createServer,
  IncomingMessage,
  maxHeaderSize,
  type Server,
  ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/** How the server treats its connections. */
export interface AppServerOptions {
  /**
   * How long an idle keep-alive connection is kept open (Node's default is 5 s). It must outlast
   * the idle timeout of whatever proxy keeps connections to the service, or the proxy sends a
   * request on a connection just as the service closes it, and answers its client 502.
   */
  keepAliveTimeoutMs?: number;
  /**
   * Connections served at once (SERVICE_MAX_CONNECTIONS); one more is closed as soon as it is
   * accepted. Each connection holds a file descriptor, and a process out of them can neither start
   * a job nor reach its database: however many connections come, idle or slow, some are left.
   */
  maxConnections?: number;
}

/**
 * The HTTP server of an Express app whose requests and responses are born with the app's
 * prototypes.
 *
 * Express gives every request and response its own prototype (`app.request`, `app.response`) with
 * `Object.setPrototypeOf` as they come in. Changing the prototype of a live object is costly in V8:
 * the objects change shape, and much of each request's garbage lives long enough to be copied by
 * the next scavenge. On this machine a minimal Express 5 app (cors, a JSON parser, one `res.json`
 * route; autocannon, one connection) served 6,000 requests/s with 3-4 ms young-generation pauses
 * and a heap growing between full collections; built as below, 10,400 requests/s with 0.4 ms
 * pauses and a flat heap.
 *
 * Node's server can construct requests and responses from classes of our choosing. These classes
 * put the prototypes Express would set in the chain from the start, so Express's own
 * `setPrototypeOf` finds the prototype already in place and does nothing.
 */
export function createAppServer(
  app: Express,
  inFront?: FrontHandler,
  options: AppServerOptions = {},
): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  adoptAsPrototype(app, 'request', AppRequest.prototype);
  adoptAsPrototype(app, 'response', AppResponse.prototype);
  const handler = inFront
    ? (req: IncomingMessage, res: ServerResponse) => inFront(req, res, () => app(req, res))
    : app;
  const server = createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, handler);
  if (options.keepAliveTimeoutMs !== undefined) {
    server.keepAliveTimeout = options.keepAliveTimeoutMs;
    // Above the keep-alive timeout, as proxies' guides ask, and the whole request's time above that.
    server.headersTimeout = options.keepAliveTimeoutMs + 1000;
    server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
  }
  // An idle connection that never sends a request is closed by the headers timeout, one that sends
  // slowly by the request timeout, one idle between requests by the keep-alive timeout: each state
  // of a connection has an end, and the limit bounds how many there are meanwhile.
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;
  server.on('clientError', answerClientError);
  return server;
}

/**
 * What Node answers itself to a request it cannot parse (an empty 400, 431 or 408), answered as the
 * rest of the API answers: `{ "error": message }` naming the problem. As Node does, only while
 * nothing of a response has been written to the socket, and the connection is closed after it.
 */
function answerClientError(error: NodeJS.ErrnoException & { reason?: string }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const [status, message] = clientErrorAnswer(error);
    const body = JSON.stringify({ error: message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

function clientErrorAnswer(error: NodeJS.ErrnoException & { reason?: string }): [number, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `request headers are larger than the limit of ${maxHeaderSize} bytes`];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'request chunk extensions are larger than the limit'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request did not arrive in time'];
    default:
      // llhttp's reason ("Invalid method encountered") says what was wrong, and nothing of the server.
      return [400, `malformed HTTP request${error.reason ? `: ${error.reason}` : ''}`];
  }
}

/**
 * Answers some requests before the app sees them (http/frontDoor/); hands every other one
 * to the app with `toApp`, untouched.
 */
export type FrontHandler = (req: IncomingMessage, res: ServerResponse, toApp: () => void) => void;

/**
 * Makes `prototype` the app's `request` (or `response`) prototype: it takes over the parent and the
 * own properties (`app`) of the one Express made, so that it behaves the same.
 */
function adoptAsPrototype(app: Express, key: 'request' | 'response', prototype: object): void {
  const made = app[key] as object;
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(made));
  for (const name of Reflect.ownKeys(made)) {
    Object.defineProperty(prototype, name, Object.getOwnPropertyDescriptor(made, name)!);
  }
  (app as unknown as Record<string, object>)[key] = prototype;
}
