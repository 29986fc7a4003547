import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { HttpError } from '../httpKit/httpError';
import { boundedField } from '../logging/boundedField';
import type { Logger } from '../logging/logger';
import { OncePerKey } from '../logging/oncePerKey';

/**
 * Why a service without an API token must not answer this request, or null when it may.
 *
 * Without a token anyone who can reach the API can create and run commands, and a browser on this
 * machine can reach the loopback port on behalf of any page it opens: a page elsewhere can POST
 * across origins (a simple request needs no preflight, so CORS headers alone stop nothing), and a
 * name rebound to 127.0.0.1 (DNS rebinding) makes the page's origin the service's own. So:
 *
 * - an `Origin` must be a page on this machine (http or https on localhost, 127.0.0.0/8 or [::1],
 *   any port) or the service's own (same host as the request's); a request without one (curl,
 *   scripts, a same-origin GET) passes;
 * - the `Host` must be a loopback name or address, or the address the connection came in on (a
 *   service listening on 0.0.0.0 is reached by its IP). A rebound name is neither.
 *
 * With a token none of this applies (app.ts): a page cannot get the token.
 */
export function foreignBrowserRefusal(req: IncomingMessage): string | null {
  const host = req.headers.host;
  if (host !== undefined && !isLoopbackHost(host) && !isLocalAddressHost(host, req.socket.localAddress)) {
    return (
      `refused: the Host ${JSON.stringify(host)} is not this machine's loopback name or address nor the ` +
      'address the service listens on (a request for any other name may be a DNS rebinding attack). ' +
      'Without SERVICE_API_TOKEN the service answers only requests addressed to localhost, 127.0.0.1, ' +
      '[::1] or its own address: set SERVICE_API_TOKEN to reach it by another name'
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isLocalOrigin(origin, host)) {
    return (
      `refused: the request comes from a page on ${JSON.stringify(origin)}, and without ` +
      'SERVICE_API_TOKEN the service answers only its own dashboard and pages on this machine ' +
      '(http://localhost, 127.0.0.0/8 or [::1], any port): set SERVICE_API_TOKEN to allow other origins'
    );
  }
  return null;
}

/** How many refused Origins and Hosts are logged (each once): a hostile page cannot flood the log. */
const MAX_LOGGED_REFUSALS = 64;

/** The app's side of `foreignBrowserRefusal`: a 403 with the reason, logged once per Origin and Host. */
export function localBrowsersOnly(logger: Logger): RequestHandler {
  const logged = new OncePerKey({ maxKeys: MAX_LOGGED_REFUSALS });
  return (req, _res, next) => {
    const refusal = foreignBrowserRefusal(req);
    if (refusal === null) return next();
    if (logged.admit(`${req.headers.host ?? ''} ${req.headers.origin ?? ''}`)) {
      logger.warn('refused a request from another site', {
        host: boundedField(req.headers.host),
        origin: boundedField(req.headers.origin),
        method: req.method,
        path: boundedField(req.path),
        fix: 'set SERVICE_API_TOKEN',
      });
    }
    next(new HttpError(403, refusal));
  };
}

/** A Host header (`name` or `name:port`, `[v6]` or `[v6]:port`) and its name, lower-cased. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::[0-9]{1,5})?$/i;

function hostName(host: string): string | null {
  const match = HOST_HEADER.exec(host);
  return match ? (match[1] ?? match[2]!).toLowerCase() : null;
}

/** Names only this machine answers to: browsers resolve `localhost` without asking DNS. */
function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name === '::1' || /^127(?:\.[0-9]{1,3}){3}$/.test(name);
}

function isLoopbackHost(host: string): boolean {
  const name = hostName(host);
  return name !== null && isLoopbackName(name);
}

/**
 * Whether the Host names the address the connection arrived at (`localAddress`, in the form Node
 * gives it: `::ffff:`-prefixed for IPv4 on a dual-stack socket). An address in the Host means the
 * browser was pointed at this address itself, which no other site can serve.
 */
function isLocalAddressHost(host: string, localAddress: string | undefined): boolean {
  const name = hostName(host);
  if (name === null || localAddress === undefined) return false;
  const address = localAddress.toLowerCase().replace(/^::ffff:(?=[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$)/, '');
  return name === address;
}

/** A page on this machine, or the service's own page (its origin names the same host as the request). */
function isLocalOrigin(origin: string, host: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (a sandboxed frame, a file), or not an origin at all
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (isLoopbackName(url.hostname.replace(/^\[(.*)\]$/, '$1'))) return true;
  return host !== undefined && url.host === host.toLowerCase();
}
